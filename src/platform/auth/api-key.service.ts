import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { storedSetting as readSetting, storeSetting as writeSetting } from '../settings/settings.service.js';
import { generateApiKey, safeEqual } from './secrets.js';

const KEY = 'api_key';

/**
 * The single API key. It is read from the database on every check (a primary-key lookup), so a
 * rotation on any instance invalidates the old key at once everywhere.
 */
export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async current(): Promise<string | undefined> {
    const v = await readSetting(this.db, KEY);
    return typeof v === 'string' ? v : undefined;
  }

  async verify(presented: string | undefined): Promise<boolean> {
    if (!presented) return false;
    const key = await this.current();
    return key !== undefined && safeEqual(presented, key);
  }

  async rotate(): Promise<string> {
    const key = generateApiKey();
    await writeSetting(this.db, KEY, key, this.clock.now());
    return key;
  }
}
