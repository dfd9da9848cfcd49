import { createHash, createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { clickIdParams, fillTemplate, pickClickId } from '../../src/platform/adapters/network-postback.adapter.js';
import { MAX_ATTEMPTS, nextDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from '../../src/platform/webhooks/backoff.js';
import { legacySignature, standardSignature, webhookHeaders } from '../../src/platform/webhooks/signature.js';
import { checkOutboundUrl, isForbiddenAddress, type Resolver } from '../../src/platform/webhooks/ssrf.js';

describe('SSRF address classes', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2001:db8::1',
    'not-an-ip',
  ])('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '100.63.255.255', '100.128.0.1', '2606:4700::1111', '::ffff:93.184.216.34'])('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it('checks every address a name resolves to', async () => {
    const resolve: Resolver = async (host) =>
      host === 'two.example' ? [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.2', family: 4 }] : [{ address: '8.8.4.4', family: 4 }];
    expect(await checkOutboundUrl('https://two.example/x', resolve)).toMatch(/10\.0\.0\.2/);
    expect(await checkOutboundUrl('https://one.example/x', resolve)).toBeUndefined();
    expect(await checkOutboundUrl('ftp://one.example/x', resolve)).toMatch(/http/);
    expect(await checkOutboundUrl('http://[::ffff:a9fe:a9fe]/', resolve)).toMatch(/private or reserved/);
  });
});

describe('retry schedule', () => {
  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up after 8 attempts', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    for (let i = 1; i <= 7; i++) {
      const base = RETRY_DELAYS_MS[i - 1]!;
      expect(nextDelayMs(i, undefined, () => 0)).toBe(Math.round(base * 0.9));
      expect(nextDelayMs(i, undefined, () => 1)).toBe(Math.round(base * 1.1));
    }
    expect(nextDelayMs(8, undefined)).toBeUndefined();
    expect(nextDelayMs(8, 1000)).toBeUndefined();
  });

  it('honours Retry-After within 1 s .. 10 h', () => {
    expect(nextDelayMs(1, 120_000)).toBe(120_000);
    expect(nextDelayMs(1, 0)).toBe(1_000);
    expect(nextDelayMs(1, 10 ** 12)).toBe(36_000_000);
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('signatures', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const body = '{"event":"order.paid","id":"evt_1","ts":1700000000,"data":{}}';

  it('seed scheme: lowercase hex sha256(secret ‖ body)', () => {
    expect(legacySignature(secret, body)).toBe(createHash('sha256').update(secret + body).digest('hex'));
    expect(legacySignature(secret, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('Standard Webhooks scheme: v1, base64 HMAC over id.timestamp.body with the decoded whsec_ key', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const expected = createHmac('sha256', key).update(`evt_1.1700000000.${body}`).digest('base64');
    expect(standardSignature(secret, 'evt_1', 1700000000, body)).toBe(`v1,${expected}`);
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, { event: 'order.paid', id: 'evt_1' }, body, ts);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers).toMatchObject({ 'x-svc-event': 'order.paid', 'x-svc-event-id': 'evt_1', 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts) });
  });
});

describe('network postback template', () => {
  it('fills and encodes the placeholders, leaving unknown ones', () => {
    expect(fillTemplate('https://n.example/pb?o={order_id}&a={amount}&c={click_id}&x={other}', { order_id: 'a/b c', amount: '12.5', click_id: '' })).toBe(
      'https://n.example/pb?o=a%2Fb%20c&a=12.5&c=&x={other}',
    );
  });

  it('picks a click id from the stored JSON', () => {
    expect(pickClickId(null)).toBe('');
    expect(pickClickId('{"click_id":"c1","gclid":"g"}')).toBe('c1');
    expect(pickClickId('{"gclid":"g"}')).toBe('g');
    expect(pickClickId('["x","y"]')).toBe('x');
    expect(pickClickId('"s"')).toBe('s');
    expect(pickClickId('raw-id')).toBe('raw-id');
    expect(clickIdParams('{"awc":"A1","clickid":"c"}')).toEqual({ awc: 'A1', clickid: 'c' });
    expect(clickIdParams('["x"]')).toEqual({});
    expect(clickIdParams('nope')).toEqual({});
  });
});
