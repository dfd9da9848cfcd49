import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { runSvc } from '../helpers/process.js';
import { startTestService, type TestService } from '../helpers/service.js';

let userCounter = 0;

/** A wrong login under a new user name each time: only the per-client-IP limit can stop it (README.md#login-throttling). */
function guess(t: TestService, remoteAddress: string, forwardedFor?: string): Promise<LightMyRequestResponse> {
  return t.service.app.inject({
    method: 'POST',
    url: '/admin/api/login',
    payload: { username: `someone${++userCounter}`, password: 'wrong' },
    remoteAddress,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });
}

/** How many of six guesses (each with its own X-Forwarded-For) are let through before 429. */
async function statuses(t: TestService, remoteAddress: string, forwardedFor: (i: number) => string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 6; i++) out.push((await guess(t, remoteAddress, forwardedFor(i))).statusCode);
  return out;
}

const LIMITED_ON_SIXTH = [401, 401, 401, 401, 401, 429];
const NEVER_LIMITED = [401, 401, 401, 401, 401, 401];

describeEachDatabase('client IP and SVC_TRUST_PROXY (README.md#clients)', (dialect) => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('by default trusts no X-Forwarded-For: rotating it does not make a new client', async () => {
    t = await startTestService(dialect);
    expect(await statuses(t, '198.51.100.7', (i) => `192.0.2.${i + 1}`)).toEqual(LIMITED_ON_SIXTH);
  });

  it('with a proxy list, the listed proxy sets the client IP and anyone else cannot', async () => {
    t = await startTestService(dialect, { env: { SVC_TRUST_PROXY: '10.0.0.5, 10.1.0.0/16' } });
    // through a trusted proxy each forwarded address is its own client
    expect(await statuses(t, '10.0.0.5', (i) => `192.0.2.${i + 1}`)).toEqual(NEVER_LIMITED);
    expect(await statuses(t, '10.1.200.3', (i) => `192.0.2.${i + 11}`)).toEqual(NEVER_LIMITED);
    // the same forwarded client through a trusted proxy is one client
    expect(await statuses(t, '10.0.0.5', () => '192.0.2.99')).toEqual(LIMITED_ON_SIXTH);
    // a peer that is not a listed proxy: its X-Forwarded-For is ignored, it is limited as itself
    expect(await statuses(t, '198.51.100.8', (i) => `192.0.2.${i + 21}`)).toEqual(LIMITED_ON_SIXTH);
    // a spoofed entry before the proxy's own is not trusted either: the proxy's view of the client counts
    expect(await statuses(t, '10.0.0.5', (i) => `192.0.2.${i + 31}, 192.0.2.200`)).toEqual(LIMITED_ON_SIXTH);
  });

  it('with a hop count, the entry that many hops back is the client, whatever comes before it', async () => {
    t = await startTestService(dialect, { env: { SVC_TRUST_PROXY: '2' } });
    // client -> proxy 10.0.0.1 -> proxy (peer 127.0.0.1): X-Forwarded-For "<anything>, client, 10.0.0.1"
    expect(await statuses(t, '127.0.0.1', (i) => `192.0.2.${i + 1}, 198.51.100.50, 10.0.0.1`)).toEqual(LIMITED_ON_SIXTH);
    expect(await statuses(t, '127.0.0.1', (i) => `192.0.2.99, 198.51.100.${60 + i}, 10.0.0.1`)).toEqual(NEVER_LIMITED);
  });
});

describe('SVC_TRUST_PROXY=true', () => {
  it('is refused at start with one line saying what to write instead', async () => {
    const p = runSvc({ DATABASE_URL: 'sqlite::memory:', PORT: '0', SVC_TRUST_PROXY: 'true' });
    expect(await p.exited).toBe(2);
    const lines = p.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: configuration error: SVC_TRUST_PROXY: "true" would trust any X-Forwarded-For; write the number of proxies .* \(e\.g\. 1\) or their addresses/);
  });
});
