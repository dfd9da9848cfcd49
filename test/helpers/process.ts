import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** The built service; `npm test` builds it before the tests run. */
export const MAIN = join(import.meta.dirname, '../../dist/main.js');
/** The built operator command (`npm run admin -- …`). */
export const ADMIN_CLI = join(import.meta.dirname, '../../dist/admin-cli.js');

export interface SvcProcess {
  readonly child: ChildProcess;
  stdout(): string;
  /** The log's messages so far, one per line of stdout (JSON lines unless LOG_FORMAT=pretty was given). */
  messages(): string[];
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then resolves once it has exited (at once if it already has). */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/main.js` with only PATH, LOG_LEVEL=warn, SMTP_PORT=off and `env` in its environment.
 * SMTP is off unless `env` sets SMTP_PORT: suites start many at once, and only one could have 2525.
 */
export function runSvc(env: Record<string, string>): SvcProcess {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: npm test builds it first (npm run build)');
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', SMTP_PORT: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    messages: () => logMessages(out),
    stderr: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `node dist/admin-cli.js args…` with only PATH and `env`; resolves when it has exited. */
export async function runAdminCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(ADMIN_CLI)) throw new Error('dist/admin-cli.js is missing: npm test builds it first (npm run build)');
  const child = spawn(process.execPath, [ADMIN_CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** Polls until predicate holds (a child process's output, which no drain call can wait for). */
export async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The message of each complete line of a log: `msg` of a JSON line, what follows `[time] LEVEL: ` in a pretty one. */
export function logMessages(out: string): string[] {
  return out
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      const pretty = /^\[[^\]]+\] [A-Z]+: (.*)$/.exec(line);
      if (pretty) return pretty[1] as string;
      if (!line.startsWith('{')) return line;
      const msg = (JSON.parse(line) as { msg?: unknown }).msg;
      return typeof msg === 'string' ? msg : line;
    });
}

/** What the banner line `label: value` of a process says (`admin password`, `API key`), if it has one. */
export function bannerValue(p: SvcProcess, label: string): string | undefined {
  for (const message of p.messages()) {
    const m = new RegExp(`${label}: +(\\S+)`).exec(message);
    if (m) return m[1];
  }
  return undefined;
}

/** The HTTP address in a log (it listens on PORT=0, so the OS picks a free port). */
export function listeningOn(out: string): string {
  const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
  if (!m?.[1]) throw new Error(`no listening line in: ${out}`);
  return m[1];
}

/**
 * Waits for the last line of the start banner ("svc is running at …") and returns the HTTP address the
 * process listens on; the secrets, when this start created them, are in the log by then.
 */
export async function started(p: SvcProcess): Promise<string> {
  try {
    await waitFor(() => p.messages().some((m) => m.startsWith('svc is running at ')) || p.child.exitCode !== null);
  } catch {
    throw new Error(`svc did not start: ${p.stderr()}`);
  }
  if (p.child.exitCode !== null) throw new Error(`svc exited with ${p.child.exitCode}: ${p.stderr()}`);
  return listeningOn(p.stdout());
}

/** A port free at this moment on `host`, for a service told to listen on it (SMTP_PORT, PORT). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const { server, port } = await takePort(host);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A port this test holds, so that a service finds it taken; close the server to free it. */
export async function takePort(host = '127.0.0.1'): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no port');
  return { server, port: address.port };
}
