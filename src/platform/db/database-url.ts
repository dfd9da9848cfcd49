import { ConfigError, redact } from '../config-error.js';
import type { DatabaseConfig } from './database.js';

export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError(`DATABASE_URL: "${url}" names no file (use sqlite:./data/svc.db or sqlite::memory:)`);
    return Object.freeze({ kind: 'sqlite', path, url });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    try {
      const u = new URL(url);
      if (!u.hostname && !u.searchParams.get('host')) throw new Error('no host');
    } catch {
      throw new ConfigError(`DATABASE_URL: "${redact(url)}" is not a valid postgres:// URL`);
    }
    return Object.freeze({ kind: 'postgres', url });
  }
  throw new ConfigError(`DATABASE_URL: "${redact(url)}" must start with sqlite: or postgres://`);
}
