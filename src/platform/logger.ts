import pino, { type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** The service's logger type (pino), in a module that imports nothing of ours: every layer may use it. */
export type { Logger } from 'pino';

/** `pretty`: one readable line per event, for a terminal; `json`: one JSON object per line, for machines (CONTRACT §21). */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  readonly level: string;
  readonly format: LogFormat;
  /** Colours in the pretty lines: only when they go to a terminal. */
  readonly colorize?: boolean;
}

/**
 * The process's logger, writing to stdout. `pretty` runs pino-pretty's own formatter in this thread
 * (prettyFactory: time, level, message, and the event's fields on the same line) and writes each line
 * synchronously, as console.log does: what was logged is on the terminal when the call returns, so an
 * exit right after loses nothing. Not pino-pretty as a transport: that runs in a worker thread whose
 * last lines can be lost when the process exits, and a terminal reads a few lines a second, so there
 * is nothing to win. `json` is pino's own destination (asynchronous, flushed synchronously by pino at
 * exit), as before.
 */
export function createLogger({ level, format, colorize = false }: LoggerOptions): Logger {
  if (format === 'json') return pino({ level }, pino.destination(1));
  const prettify = prettyFactory({
    colorize,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  const out = pino.destination({ dest: 1, sync: true });
  return pino({ level }, { write: (line: string) => out.write(prettify(line)) });
}

/**
 * A logger for the start banner: at `info` whatever LOG_LEVEL says, since the first start's secrets
 * are in it and are printed only once (CONTRACT §21). Same stream, so it is in the log like the rest.
 */
export function bannerLogger(logger: Logger): Logger {
  return logger.child({}, { level: 'info' });
}
