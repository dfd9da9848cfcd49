export type SmtpError = Error & { responseCode?: number };

export function smtpError(code: number, message: string): SmtpError {
  const err: SmtpError = new Error(message);
  err.responseCode = code;
  return err;
}

/**
 * Database errors about the data itself, which a retry of the same message would hit again: SQLite
 * values too big or too many, PostgreSQL data exceptions (class 22: invalid bytes, NUL) and program
 * limits (class 54).
 */
export function isPermanentStorageError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === 'SQLITE_TOOBIG' || code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH') return true;
  if (code === 'SQLITE_ERROR' && typeof e.message === 'string' && /too many SQL variables/i.test(e.message)) return true;
  return /^(22|54)[0-9A-Z]{3}$/.test(code);
}
