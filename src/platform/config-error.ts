/** Raised when the environment cannot be turned into a valid config; main prints its message as one line. */
export class ConfigError extends Error {}

/** A URL as an error may show it: the password replaced. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
