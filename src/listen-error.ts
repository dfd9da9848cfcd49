/** What failed to listen (`HTTP`, `SMTP`), where, and why: main prints it as one line. */
export class ListenError extends Error {
  readonly code?: string;
  constructor(
    readonly what: string,
    readonly host: string,
    readonly port: number,
    cause: unknown,
  ) {
    const code = (cause as { code?: string })?.code;
    super(`cannot listen for ${what} on ${hostPort(host, port)}: ${reason(code, cause)}`, { cause });
    this.name = 'ListenError';
    this.code = code;
  }
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function reason(code: string | undefined, cause: unknown): string {
  switch (code) {
    case 'EADDRINUSE':
      return 'the address is already in use (EADDRINUSE): another process listens on that port';
    case 'EACCES':
      return 'permission denied (EACCES): ports below 1024 need root or CAP_NET_BIND_SERVICE';
    case 'EADDRNOTAVAIL':
      return 'the address is not available on this machine (EADDRNOTAVAIL)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name does not resolve (${code})`;
    default: {
      const message = String((cause as { message?: string })?.message ?? cause).replace(/\s*\n\s*/g, ' ');
      return code ? `${message} (${code})` : message;
    }
  }
}
