import type { EventData } from './catalogue.js';

// Each feature builds its own events' `data` (commission.events.ts, withdrawal.events.ts, order.events.ts,
// affiliate.events.ts, message.events.ts) against the catalogue's schema; the platform builds only its own.

export function testEventPayload(): EventData<'webhook.test'> {
  return { message: 'This is a test event from svc.' };
}
