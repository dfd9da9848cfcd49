/**
 * Something that runs beside the HTTP server (delivery worker, retention job, SMTP server, mail
 * notices): started by the service after it listens, stopped before the database closes. A module of
 * its own that imports nothing, so the tasks and the context that builds them never import each other.
 */
export interface BackgroundTask {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Set for a task that listens on a port: a failed start then names it (ListenError). */
  readonly listensOn?: { readonly what: string; readonly host: string; readonly port: number };
}
