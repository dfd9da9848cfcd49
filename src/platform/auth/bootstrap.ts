import type { Clock } from '../clock.js';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../db/database.js';
import { newId } from '../ids.js';
import { generateWebhookSecret, storeSettingIfAbsent as insertSettingIfAbsent } from '../settings/settings.service.js';
import { insertFirstAdminUser } from './admin-users.repository.js';
import { FIRST_ADMIN } from './admin-users.service.js';
import { hashPassword } from './password.js';
import { generateApiKey, generatePassword } from './secrets.js';

export interface BootstrapResult {
  /**
   * Set only when this start created the admin user (the database had none). The password is set only
   * when it was generated.
   */
  readonly adminCreated: boolean;
  readonly generatedAdminPassword?: string;
  readonly apiKeyCreated: boolean;
  readonly generatedApiKey?: string;
}

/**
 * First start: create the admin user (only while the database has no admin user at all), the API key
 * and a webhook secret unless they exist. Each insert is conditional, so instances starting together on
 * one PostgreSQL create each thing once; one transaction, so the instance that creates the admin user
 * also creates the key, and one banner shows both. The service runs it only once it listens (server.ts).
 */
export async function bootstrap(db: Db, config: Config, clock: Clock): Promise<BootstrapResult> {
  const now = clock.now();
  const password = config.adminPassword ?? generatePassword();
  // scrypt before the transaction: nothing waits on the database while it runs
  const passwordHash = await hashPassword(password);
  const apiKey = config.apiKey ?? generateApiKey();
  const { adminCreated, apiKeyCreated } = await inTransaction(db, async (tx) => {
    const adminCreated = await insertFirstAdminUser(tx, { id: newId('usr', now), username: FIRST_ADMIN, password_hash: passwordHash, created_at: now });
    const apiKeyCreated = await insertSettingIfAbsent(tx, 'api_key', apiKey, now);
    await insertSettingIfAbsent(tx, 'webhook_secret', generateWebhookSecret(), now);
    return { adminCreated, apiKeyCreated };
  });
  return {
    adminCreated,
    generatedAdminPassword: adminCreated && !config.adminPassword ? password : undefined,
    apiKeyCreated,
    generatedApiKey: apiKeyCreated && !config.apiKey ? apiKey : undefined,
  };
}
