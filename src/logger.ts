/** The service's logger type (pino), in a module that imports nothing of ours: every layer may use it. */
export type { Logger } from 'pino';
