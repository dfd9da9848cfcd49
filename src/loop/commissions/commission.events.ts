import type { Commission } from '../../platform/db/schema.js';
import type { EventData } from '../../platform/events/catalogue.js';
import type { Currency } from '../../platform/money.js';
import { commissionView } from './commission.schemas.js';

/**
 * `commission.created`, `.approved`, `.paid`, `.voided`: the commission after the change, through the same
 * mapper as the API body (one view of a commission); the catalogue's schema holds the webhook's shape
 * still (test/unit/event-shapes.test.ts snapshots its keys and types).
 */
export function commissionChangedPayload(c: Commission, cur: Currency): EventData<'commission.created' | 'commission.approved' | 'commission.paid' | 'commission.voided'> {
  return { commission: commissionView(c, cur), ref_code: c.ref_code };
}
