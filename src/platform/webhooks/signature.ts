import { createHash, createHmac } from 'node:crypto';

/**
 * The seed's scheme: lowercase hex sha256(secret ‖ body). Kept for compatibility; it has no timestamp
 * (replayable) and a plain hash of secret‖message is open to length extension, hence the HMAC below.
 */
export function legacySignature(secret: string, body: string): string {
  return createHash('sha256').update(secret, 'utf8').update(body, 'utf8').digest('hex');
}

/** Standard Webhooks key: the base64 after `whsec_`, or the UTF-8 bytes of a secret without that prefix. */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/** `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` (Standard Webhooks). */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** Every header a webhook request carries (CONTRACT §9). */
export function webhookHeaders(secret: string, event: { event: string; id: string }, body: string, timestampSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
    'x-svc-event': event.event,
    'x-svc-event-id': event.id,
    'x-svc-signature': legacySignature(secret, body),
    'webhook-id': event.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignature(secret, event.id, timestampSeconds, body),
  };
}
