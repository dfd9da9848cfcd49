import { toIso } from '../../platform/clock.js';
import type { Affiliate } from '../../platform/db/schema.js';
import type { EventData } from '../../platform/events/catalogue.js';

/** `affiliate.created`: the new affiliate. */
export function affiliateCreatedPayload(a: Affiliate): EventData<'affiliate.created'> {
  return {
    affiliate: {
      ref_code: a.ref_code,
      name: a.name,
      email: a.email,
      status: a.status,
      commission_rate: a.commission_rate_bp === null ? null : a.commission_rate_bp / 100,
      created_at: toIso(a.created_at),
    },
    ref_code: a.ref_code,
  };
}
