import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SECRETS = {
  webhook_secret: 'whsec_webhook-Qz7pLm3vXk9sTn2Rw-WXYZ',
  stripe_webhook_secret: 'whsec_stripe-Hb4nKd8qZt1yUe6Gv-abcd',
  paddle_webhook_secret: 'pdl_ntfset_paddle-Jc5mWr2xNf7aLs3Pq-efgh',
  lemonsqueezy_webhook_secret: 'lemon-Ty6vBn9kQe4hDz1Mx-ijkl',
};
const KEYS = Object.keys(SECRETS) as (keyof typeof SECRETS)[];

/** docs/api.md#settings: provider and webhook secrets are write-only. */
describeEachDatabase('settings: secrets are write-only', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** No secret, nor any 8 characters of one, appears anywhere in an answer. */
  const holdsNoSecret = (body: string) => {
    for (const value of Object.values(SECRETS)) for (let i = 0; i + 8 <= value.length; i += 4) expect(body).not.toContain(value.slice(i, i + 8));
  };
  const lemonEvent = JSON.stringify({ meta: { event_name: 'order_created', custom_data: {} }, data: { id: '1', attributes: { status: 'pending' } } });
  const lemonSigned = (secret: string) => t.request('POST', '/integrations/lemonsqueezy', lemonEvent, { 'content-type': 'application/json', 'x-signature': createHmac('sha256', secret).update(lemonEvent).digest('hex') });

  it('an unset provider secret answers {set: false, last4: null}; the generated webhook secret only its state', async () => {
    const admin = await t.admin();
    const res = await admin.call('GET', '/admin/api/settings');
    expect(res.statusCode).toBe(200);
    const s = res.json().settings;
    expect(s).toMatchObject({ stripe_webhook_secret: { set: false, last4: null }, paddle_webhook_secret: { set: false, last4: null }, lemonsqueezy_webhook_secret: { set: false, last4: null } });
    const generated = (await t.service.ctx.services.settings.get()).webhook_secret;
    expect(s.webhook_secret).toEqual({ set: true, last4: generated.slice(-4) });
    expect(res.body).not.toContain(generated.slice(0, -4));
  });

  it('PATCH and GET show each secret as set with its last four characters, never the value', async () => {
    const admin = await t.admin();
    const patched = await admin.call('PATCH', '/admin/api/settings', SECRETS);
    expect(patched.statusCode).toBe(200);
    holdsNoSecret(patched.body);
    const read = await admin.call('GET', '/admin/api/settings');
    holdsNoSecret(read.body);
    for (const res of [patched, read]) for (const key of KEYS) expect(res.json().settings[key]).toEqual({ set: true, last4: SECRETS[key].slice(-4) });
    // the secrets themselves are in force: the provider's signature with it verifies
    const signed = await lemonSigned(SECRETS.lemonsqueezy_webhook_secret);
    expect(signed.statusCode).toBe(200);
  });

  it('a PATCH without a secret keeps it; one with another replaces it; a provider secret set to "" is cleared', async () => {
    const admin = await t.admin();
    const other = await admin.call('PATCH', '/admin/api/settings', { commission_rate: 12, webhook_url: null });
    expect(other.statusCode).toBe(200);
    holdsNoSecret(other.body);
    for (const key of KEYS) expect(other.json().settings[key]).toEqual({ set: true, last4: SECRETS[key].slice(-4) });
    expect((await lemonSigned(SECRETS.lemonsqueezy_webhook_secret)).statusCode).toBe(200);

    const replaced = await admin.call('PATCH', '/admin/api/settings', { lemonsqueezy_webhook_secret: 'lemon-replaced-secret-mnop' });
    expect(replaced.json().settings.lemonsqueezy_webhook_secret).toEqual({ set: true, last4: 'mnop' });
    expect(replaced.body).not.toContain('lemon-replaced');
    expect((await lemonSigned(SECRETS.lemonsqueezy_webhook_secret)).json().error.code).toBe('invalid_signature');
    expect((await lemonSigned('lemon-replaced-secret-mnop')).statusCode).toBe(200);

    const cleared = await admin.call('PATCH', '/admin/api/settings', { lemonsqueezy_webhook_secret: '' });
    expect(cleared.json().settings.lemonsqueezy_webhook_secret).toEqual({ set: false, last4: null });
    expect((await lemonSigned('lemon-replaced-secret-mnop')).json()).toMatchObject({ success: false, error: { code: 'invalid_signature' } });
  });

  it('no answer the admin area or the API key reads holds a secret (the API description says write-only)', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', SECRETS);
    const doc = (await t.request('GET', '/openapi.json')).json();
    const settingsAnswer = doc.paths['/admin/api/settings'].get.responses['200'];
    expect(JSON.stringify(settingsAnswer)).toContain('write-only');
    // every GET of either area without parameters
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      // long-lived answers (waits, event streams) are not reads of settings
      if (!ops.get || path.includes('{') || /wait|stream/.test(path)) continue;
      const res = path.startsWith('/admin/api/') ? await admin.call('GET', path) : path.startsWith('/api/') ? await t.api('GET', path) : undefined;
      if (res) holdsNoSecret(res.body);
    }
  });
});
