import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The built service; `npm test` builds it before the tests run. */
export const MAIN = join(import.meta.dirname, '../../dist/main.js');
/** The built operator command (`npm run admin -- …`). */
export const ADMIN_CLI = join(import.meta.dirname, '../../dist/admin-cli.js');

export interface SvcProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then resolves once it has exited (at once if it already has). */
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` with only PATH, LOG_LEVEL=warn and `env` in its environment. */
export function runSvc(env: Record<string, string>): SvcProcess {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: npm test builds it first (npm run build)');
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The address the process printed (it listens on PORT=0, so the OS picks a free port). */
export function listeningOn(out: string): string {
  const m = /listening on (http:\/\/\S+)/.exec(out);
  if (!m?.[1]) throw new Error(`no listening line in: ${out}`);
  return m[1];
}

/** Waits for the process to print where it listens and returns that address. */
export async function started(p: SvcProcess): Promise<string> {
  try {
    await waitFor(() => /listening on http/.test(p.stdout()) || p.child.exitCode !== null);
  } catch {
    throw new Error(`svc did not start: ${p.stderr()}`);
  }
  if (p.child.exitCode !== null) throw new Error(`svc exited with ${p.child.exitCode}: ${p.stderr()}`);
  return listeningOn(p.stdout());
}
