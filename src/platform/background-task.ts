import type { PortSetting } from './listen-error.js';

/**
 * Something that runs beside the HTTP server (delivery worker, retention job, SMTP server, mail
 * notices): started by the service after it listens, stopped before the database closes. A module of
 * its own that imports only a type of a module that imports nothing, so the tasks and the context that
 * builds them never import each other.
 */
export interface BackgroundTask {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Set for a task that listens on a port: a failed start then names it (ListenError), a good one is in the banner. */
  readonly listensOn?: ListensOn;
}

export interface ListensOn {
  /** What listens, for people (`SMTP`), and the variable that sets its port (`SMTP_PORT`). */
  readonly what: string;
  readonly setting: PortSetting;
  /** URL scheme of its addresses in the banner (`smtp`). */
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  /** Where it listens once started (port 0 becomes the port the system chose). */
  bound(): { readonly address: string; readonly port: number };
}
