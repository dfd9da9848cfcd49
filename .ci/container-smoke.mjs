// Smoke test of the container image and compose.yaml, called by .ci/container with a mounted container of
// the image (podman create + podman mount). The image's own start command (entrypoint + cmd) runs by chroot
// as the image's user, with its environment and working directory, in a mount and PID namespace of its own
// (it is PID 1 there, as in a container), sharing this machine's network:
//   1. on SQLite with the volume /data bound to a folder here: it serves, the image's HEALTHCHECK passes,
//      the first start's log holds the secrets, the API, the public pages and SMTP work, SIGTERM stops it
//      with exit code 0, the database is in the volume and owned by the image's user; a second start on the
//      same volume prints no secrets and still knows the key and the data;
//   2. with the environment of compose.yaml's svc service, its DATABASE_URL pointed at this machine's
//      PostgreSQL (a database of this run), after checking that the compose file's pieces fit together.
// Any failed check throws: the process exits non-zero and .ci/container fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';

const { values: args } = parseArgs({
  options: {
    rootfs: { type: 'string' },
    image: { type: 'string' },
    compose: { type: 'string' },
    volume: { type: 'string' },
    postgres: { type: 'string' },
  },
});
for (const name of ['rootfs', 'image', 'compose', 'volume', 'postgres']) {
  if (!args[name]) throw new Error(`--${name} is required`);
}

const API_KEY_RE = /svc_[A-Za-z0-9_-]{32}/;
// "admin password: x" in a terminal's banner, "admin_password":"x" or the like in JSON lines
const ADMIN_PASSWORD_RE = /admin[ _-]?password\W+([A-Za-z0-9_-]{24})\b/i;
const START_DEADLINE_MS = 60_000;

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok: ${message}`);
}

/** The image as the runtime sees it: user, environment, working directory, command, health check. */
function readImage(file, rootfs) {
  const [data] = JSON.parse(readFileSync(file, 'utf8'));
  const config = data.Config ?? {};
  const healthcheck = config.Healthcheck ?? data.Healthcheck ?? data.HealthCheck;
  const [userPart, groupPart] = String(config.User ?? '').split(':');
  const passwd = readFileSync(join(rootfs, 'etc/passwd'), 'utf8').split('\n').map((l) => l.split(':'));
  const groups = readFileSync(join(rootfs, 'etc/group'), 'utf8').split('\n').map((l) => l.split(':'));
  const entry = passwd.find((p) => p[0] === userPart || p[2] === userPart);
  const uid = /^\d+$/.test(userPart ?? '') ? Number(userPart) : Number(entry?.[2]);
  const gid = groupPart
    ? /^\d+$/.test(groupPart)
      ? Number(groupPart)
      : Number(groups.find((g) => g[0] === groupPart)?.[2])
    : Number(entry?.[3]);
  const env = Object.fromEntries((config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  // as Docker does: HOME from the user's passwd entry unless the image sets it
  if (!env.HOME) env.HOME = entry?.[5] || '/';
  return {
    uid,
    gid,
    env,
    workdir: config.WorkingDir || '/',
    command: [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])],
    healthcheck,
    exposed: Object.keys(config.ExposedPorts ?? {}),
    volumes: Object.keys(config.Volumes ?? {}),
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const children = new Set();
process.on('exit', () => {
  // On a failed check: end what still runs. Killing PID 1 of a namespace ends every process in it
  // (unshare's --kill-child does not reach it: the death signal is cleared when chroot changes user).
  for (const child of children) {
    try {
      process.kill(namespaceInit(child), 'SIGKILL');
    } catch {}
    child.kill('SIGKILL');
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

/**
 * Runs `command` in the image: a mount namespace where /dev, /proc and the volume are mounted into the
 * container's root (gone with the namespace), a PID namespace where the command is PID 1, chroot as the
 * image's user, only the given environment, from the working directory.
 */
function runInImage(image, command, env, volume) {
  const envList = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const script = [
    'set -e',
    'root=$1; volume=$2; spec=$3; shift 3',
    'mount --rbind /dev "$root/dev"',
    'if [ -n "$volume" ]; then mount --bind "$volume" "$root/data"; fi',
    'exec chroot --userspec="$spec" --groups="${spec#*:}" "$root" "$@"',
  ].join('\n');
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation=private',
      '--pid',
      '--fork',
      '--kill-child',
      `--mount-proc=${join(args.rootfs, 'proc')}`,
      '--',
      'sh',
      '-c',
      script,
      'sh',
      args.rootfs,
      volume ?? '',
      `${image.uid}:${image.gid}`,
      '/usr/bin/env',
      '-i',
      ...envList,
      '/bin/sh',
      '-c',
      'cd "$0" && exec "$@"',
      image.workdir,
      ...command,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => children.delete(child));
  return { child, exited, output: () => output };
}

/** The process that unshare forked (PID 1 of the namespace, after its execs the image's command). */
function namespaceInit(child) {
  const file = `/proc/${child.pid}/task/${child.pid}/children`;
  const pid = Number(readFileSync(file, 'utf8').trim().split(/\s+/)[0]);
  if (!pid) throw new Error('the command in the image has no process');
  return pid;
}

async function waitHealthy(run, port) {
  const deadline = Date.now() + START_DEADLINE_MS;
  let exitedEarly;
  run.exited.then((r) => (exitedEarly = r));
  while (Date.now() < deadline) {
    if (exitedEarly) throw new Error(`svc exited (${JSON.stringify(exitedEarly)}) before it served:\n${run.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`svc did not answer /healthz within ${START_DEADLINE_MS} ms:\n${run.output()}`);
}

/** The image's HEALTHCHECK (or compose's), run in the image as the image's user with the same environment. */
async function runHealthcheck(image, test, env, label) {
  check(Array.isArray(test) && (test[0] === 'CMD' || test[0] === 'CMD-SHELL'), `${label} health check is a command`);
  const command = test[0] === 'CMD' ? test.slice(1) : ['/bin/sh', '-c', test[1]];
  const run = runInImage(image, command, env, undefined);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 15_000);
  const result = await run.exited;
  clearTimeout(timer);
  check(result.code === 0, `${label} health check passes (exit ${result.code}${run.output() ? `: ${run.output().trim()}` : ''})`);
}

async function stop(run, label) {
  process.kill(namespaceInit(run.child), 'SIGTERM');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  const result = await run.exited;
  clearTimeout(timer);
  check(result.code === 0, `${label}: SIGTERM stops svc with exit code 0 (got ${JSON.stringify(result)})`);
}

async function api(port, key, method, path, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function masked(text, secrets) {
  return secrets.reduce((out, secret) => out.replaceAll(secret, '***'), text);
}

/** Start, serve, the first start's secrets, the API, a public page, SMTP, stop. Returns the API key. */
async function firstStart(label, image, env, volume, ports, healthchecks) {
  const run = runInImage(image, image.command, env, volume);
  await waitHealthy(run, ports.http);
  console.log(`ok: ${label}: svc serves /healthz`);
  for (const [which, test] of healthchecks) await runHealthcheck(image, test, env, `${label}: ${which}`);
  // the banner follows the first answer by a moment: wait for it rather than race it
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(API_KEY_RE.test(run.output()) && ADMIN_PASSWORD_RE.test(run.output()))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const key = run.output().match(API_KEY_RE)?.[0];
  check(key !== undefined, `${label}: the first start's log shows the generated API key`);
  const password = run.output().match(ADMIN_PASSWORD_RE)?.[1];
  check(password !== undefined, `${label}: the first start's log shows the generated admin password`);
  console.log(masked(run.output(), [key, password]).replace(/^/gm, '  | '));
  const login = await api(ports.http, undefined, 'POST', '/admin/api/login', { username: 'admin', password });
  check(login.status === 200 && login.json?.success === true, `${label}: the admin signs in with the password from the log (${login.status})`);

  const created = await api(ports.http, key, 'POST', '/api/affiliates', { ref_code: 'smoke', name: 'Smoke test' });
  check(created.json?.success === true, `${label}: POST /api/affiliates with the key (${created.status})`);
  const mailbox = await api(ports.http, undefined, 'POST', '/mailboxes', { name: 'reader', ref: 'smoke' });
  const address = mailbox.json?.mailbox?.address;
  check(mailbox.json?.success === true && typeof address === 'string', `${label}: POST /mailboxes creates ${address}`);
  const page = await fetch(`http://127.0.0.1:${ports.http}/admin`);
  const html = await page.text();
  check(page.ok && /<script[^>]+src=/.test(html), `${label}: GET /admin serves the web app (web/dist is in the image)`);

  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtp, secure: false, ignoreTLS: true });
  const sent = await transport.sendMail({ from: 'shop@example.com', to: address, subject: 'Container smoke', text: 'Hello from SMTP' });
  check(sent.accepted.includes(address), `${label}: SMTP on the image's SMTP_PORT accepts mail for ${address}`);
  const mailDeadline = Date.now() + 15_000;
  let items = [];
  while (Date.now() < mailDeadline) {
    items = (await api(ports.http, key, 'GET', `/api/mailboxes/${address}/messages`)).json?.items ?? [];
    if (items.length > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  check(items[0]?.subject === 'Container smoke', `${label}: the mail sent over SMTP is in the mailbox`);
  await stop(run, label);
  return key;
}

async function secondStart(label, image, env, volume, ports, key) {
  const run = runInImage(image, image.command, env, volume);
  await waitHealthy(run, ports.http);
  const affiliate = await api(ports.http, key, 'GET', '/api/affiliates/smoke');
  check(affiliate.json?.affiliate?.ref_code === 'smoke', `${label}: a second start has the data and the key of the first`);
  // README: `docker exec svc node dist/admin-cli.js reset-password` beside the running service
  const reset = runInImage(image, ['node', 'dist/admin-cli.js', 'reset-password'], env, volume);
  const resetResult = await reset.exited;
  const password = reset.output().match(/password:\s+(\S+)/)?.[1];
  check(resetResult.code === 0 && password !== undefined, `${label}: admin-cli.js reset-password in the image sets a new password`);
  const login = await api(ports.http, undefined, 'POST', '/admin/api/login', { username: 'admin', password });
  check(login.status === 200 && login.json?.success === true, `${label}: the running service signs in with it (${login.status})`);
  await stop(run, label);
  // checked on the whole output, once the process has ended
  check(!API_KEY_RE.test(run.output()) && !ADMIN_PASSWORD_RE.test(run.output()), `${label}: a second start printed no secrets`);
}

async function main() {
  const image = readImage(args.image, args.rootfs);
  const compose = JSON.parse(readFileSync(args.compose, 'utf8'));

  // The image
  check(Number.isInteger(image.uid) && image.uid !== 0, `the image runs as a non-root user (uid ${image.uid}, gid ${image.gid})`);
  check(image.volumes.includes('/data'), 'the image declares the volume /data');
  check(/^sqlite:\/data\//.test(image.env.DATABASE_URL ?? ''), `DATABASE_URL puts SQLite in the volume (${image.env.DATABASE_URL})`);
  check(image.env.HOST === '0.0.0.0', 'HOST is 0.0.0.0: reachable through published ports');
  check(image.exposed.includes(`${image.env.PORT}/tcp`) && image.exposed.includes(`${image.env.SMTP_PORT}/tcp`), `the image exposes PORT and SMTP_PORT (${image.exposed.join(', ')})`);
  check(Array.isArray(image.healthcheck?.Test), `the image has a HEALTHCHECK (${JSON.stringify(image.healthcheck?.Test)})`);
  const dataDir = statSync(join(args.rootfs, 'data'));
  check(dataDir.uid === image.uid, "the image's /data belongs to its user (a named volume takes that owner)");
  const app = join(args.rootfs, image.workdir);
  check(statSync(join(app, 'dist')).uid === 0 && statSync(join(app, 'node_modules')).uid === 0, 'the code belongs to root, not to the service');
  const topLevel = readdirSync(app).sort();
  check(JSON.stringify(topLevel) === JSON.stringify(['dist', 'node_modules', 'package.json', 'web']), `the image holds only what runs (${topLevel.join(', ')})`);
  for (const dev of ['typescript', 'vite', 'vitest', '@biomejs/biome', 'playwright-core']) {
    check(!existsSync(join(app, 'node_modules', dev, 'package.json')), `no dev dependency ${dev}`);
  }
  const prebuilds = readdirSync(join(app, 'node_modules/better-sqlite3/prebuilds'));
  check(prebuilds.length === 1, `better-sqlite3 keeps one binary (${prebuilds.join(', ')})`);

  // 1. SQLite in the volume
  rmSync(args.volume, { recursive: true, force: true });
  mkdirSync(args.volume, { recursive: true });
  // what Docker does for a new named volume: it takes the owner of the image's folder
  chownSync(args.volume, dataDir.uid, dataDir.gid);
  const sqlitePorts = { http: await freePort(), smtp: await freePort() };
  const sqliteEnv = { ...image.env, PORT: String(sqlitePorts.http), SMTP_PORT: String(sqlitePorts.smtp) };
  const key = await firstStart('sqlite', image, sqliteEnv, args.volume, sqlitePorts, [['image', image.healthcheck.Test]]);
  const dbFile = join(args.volume, image.env.DATABASE_URL.slice('sqlite:/data/'.length));
  check(existsSync(dbFile) && statSync(dbFile).uid === image.uid, `the database is in the volume, owned by the image's user (${dbFile})`);
  await secondStart('sqlite', image, sqliteEnv, args.volume, sqlitePorts, key);

  // 2. compose.yaml: its pieces fit together, then its svc environment on PostgreSQL
  const svc = compose.services?.svc;
  const pg = compose.services?.postgres;
  check(svc && pg, 'compose.yaml has the services svc and postgres');
  check(svc.depends_on?.postgres?.condition === 'service_healthy', 'svc waits for a healthy postgres');
  check(Array.isArray(pg.healthcheck?.test), 'postgres has a health check');
  check(JSON.stringify(svc.healthcheck?.test) === JSON.stringify(image.healthcheck.Test), "svc's health check in compose.yaml is the image's");
  const dbUrl = new URL(svc.environment.DATABASE_URL);
  check(dbUrl.hostname === 'postgres', 'DATABASE_URL names the postgres service');
  check(
    decodeURIComponent(dbUrl.username) === pg.environment.POSTGRES_USER &&
      decodeURIComponent(dbUrl.password) === pg.environment.POSTGRES_PASSWORD &&
      dbUrl.pathname === `/${pg.environment.POSTGRES_DB}`,
    "DATABASE_URL's user, password and database are the postgres service's",
  );
  const pgData = (pg.volumes ?? [])
    .map((v) => (typeof v === 'string' ? { source: v.split(':')[0], target: v.split(':')[1] } : v))
    .find((v) => v.target === '/var/lib/postgresql/data');
  check(pgData !== undefined && Object.hasOwn(compose.volumes ?? {}, pgData.source), `PostgreSQL keeps its data in the named volume ${pgData?.source}`);
  // a misspelt name would be ignored without a word: every variable set is one that svc's code names
  const distText = readdirSync(join(app, 'dist'), { recursive: true })
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(app, 'dist', f), 'utf8'))
    .join('\n');
  const notSvc = new Set(['PATH', 'HOME', 'NODE_VERSION', 'YARN_VERSION', 'NODE_ENV']);
  for (const name of new Set([...Object.keys(image.env), ...Object.keys(svc.environment)])) {
    if (!notSvc.has(name)) check(new RegExp(`\\b${name}\\b`).test(distText), `svc reads ${name} (set by the image or compose.yaml)`);
  }
  const targets = (svc.ports ?? []).map((p) => String(typeof p === 'object' ? p.target : p.split(':').pop().split('/')[0]));
  check(targets.includes(image.env.PORT) && targets.includes(svc.environment.SMTP_PORT ?? image.env.SMTP_PORT), `svc publishes its HTTP and SMTP ports (${targets.join(', ')})`);

  const local = new URL(args.postgres);
  dbUrl.hostname = local.hostname;
  dbUrl.port = local.port;
  dbUrl.username = local.username; // this machine's server trusts local connections: the password is sent and ignored
  dbUrl.pathname = local.pathname;
  const pgPorts = { http: await freePort(), smtp: await freePort() };
  const composeEnv = Object.fromEntries(Object.entries(svc.environment).map(([k, v]) => [k, v ?? '']));
  const pgEnv = { ...image.env, ...composeEnv, DATABASE_URL: dbUrl.toString(), PORT: String(pgPorts.http), SMTP_PORT: String(pgPorts.smtp) };
  await firstStart('compose svc on postgres', image, pgEnv, undefined, pgPorts, [
    ['image', image.healthcheck.Test],
    ['compose', svc.healthcheck.test],
  ]);
}

main().then(
  () => console.log('container smoke test: all checks passed'),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
