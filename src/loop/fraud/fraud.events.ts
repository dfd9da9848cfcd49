import type { FraudCase } from '../../platform/db/schema.js';
import type { EventData } from '../../platform/events/catalogue.js';
import type { Currency } from '../../platform/money.js';
import { caseView } from './fraud.schemas.js';

/**
 * `fraud.case_opened`, `fraud.case_resolved`: the case as the API shows it (one mapper); the catalogue's
 * schema holds the webhook's shape (test/unit/event-shapes.test.ts).
 */
export function fraudCasePayload(c: FraudCase, held: { readonly count: number; readonly cents: number }, cur: Currency): EventData<'fraud.case_opened' | 'fraud.case_resolved'> {
  return { case: caseView(c, held, cur), ref_code: c.ref_code };
}
