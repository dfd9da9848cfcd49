/** The variable that sets a listener's port, so a failure can say how to pick another (`PORT=8081 npm start`). */
export interface PortSetting {
  readonly variable: string;
  /** The listener can be turned off with `<variable>=off` (SMTP). */
  readonly canTurnOff?: boolean;
}

/** What failed to listen (`HTTP`, `SMTP`), where, and why, and how to choose another port: main prints it as one line. */
export class ListenError extends Error {
  readonly code?: string;
  constructor(
    readonly what: string,
    readonly host: string,
    readonly port: number,
    cause: unknown,
    setting?: PortSetting,
  ) {
    const code = (cause as { code?: string })?.code;
    super(`cannot listen for ${what} on ${hostPort(host, port)}: ${reason(code, cause)}${advice(code, port, setting)}`, { cause });
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

/** For a port that is taken or privileged: the command that starts svc on another one (the next port up, or 80 -> 8080). */
function advice(code: string | undefined, port: number, setting: PortSetting | undefined): string {
  if (!setting || (code !== 'EADDRINUSE' && code !== 'EACCES')) return '';
  const other = code === 'EACCES' && port < 1024 ? port + 8000 : port < 65535 ? port + 1 : port - 1;
  const off = setting.canTurnOff ? ` (or ${setting.variable}=off npm start for none)` : '';
  return `; to use another port: ${setting.variable}=${other} npm start${off}`;
}
