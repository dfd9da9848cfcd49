import type { Withdrawal } from '../../platform/db/schema.js';
import type { EventData } from '../../platform/events/catalogue.js';
import type { Currency } from '../../platform/money.js';
import { withdrawalView } from './withdrawal.schemas.js';

/**
 * `withdrawal.requested`, `.paid`, `.rejected`: the withdrawal after the change, through the same mapper as
 * the API body; the catalogue's schema holds the webhook's shape still (test/unit/event-shapes.test.ts).
 */
export function withdrawalChangedPayload(w: Withdrawal, cur: Currency): EventData<'withdrawal.requested' | 'withdrawal.paid' | 'withdrawal.rejected'> {
  return { withdrawal: withdrawalView(w, cur), ref_code: w.ref_code };
}
