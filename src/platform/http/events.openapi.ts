import { EVENT_TYPES, EVENTS, envelopeSchema } from '../events/catalogue.js';
import { jsonSchema } from './openapi.js';

/** The request headers of every webhook (CONTRACT §9). */
const HEADERS: readonly [name: string, description: string][] = [
  ['X-SVC-Event', 'The event type'],
  ['X-SVC-Event-Id', 'The event id (also `webhook-id`); the same on every retry'],
  ['X-SVC-Signature', 'Lowercase hex sha256(webhook_secret ‖ raw body): the original scheme, kept for existing receivers'],
  ['webhook-id', 'Standard Webhooks: the event id'],
  ['webhook-timestamp', 'Standard Webhooks: Unix seconds of this attempt'],
  ['webhook-signature', 'Standard Webhooks: `v1,` + base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)'],
];

/**
 * The OpenAPI 3.1 `webhooks` object: one entry per catalogued event, the POST svc sends to the
 * configured `webhook_url`, with the envelope and the event's payload schema from the catalogue.
 */
export function eventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          tags: ['Webhooks'],
          summary: EVENTS[type].description,
          operationId: `webhook${type.replace(/(^|\.)(\w)/g, (_m, _dot: string, c: string) => c.toUpperCase())}`,
          parameters: HEADERS.map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(envelopeSchema(type), 'output') } } },
          responses: {
            '2XX': { description: 'Received. Any other answer, a redirect included, or none within 10 s is retried (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)' },
          },
        },
      },
    ]),
  );
}
