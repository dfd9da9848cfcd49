import { describe, expect, it } from 'vitest';
import { mailboxesToCount, planByteQuotas } from '../../src/mail/messages/byte-quota.js';
import type { MailboxQuota } from '../../src/mail/messages/mail-retention.repository.js';

/** The byte quota rule of docs/mailtm.md#the-quota (mail.tm accounts), decided without a database. */
describe('the byte quota rule', () => {
  const plain: MailboxQuota = { address: 'plain@svc.test', maxBytes: null, bytesBound: null };
  const quota = (address: string, maxBytes: number, bytesBound: number | null): MailboxQuota => ({ address, maxBytes, bytesBound });
  const none = new Map<string, number>();

  it('a mailbox without a quota always takes the message and is neither counted nor trimmed', () => {
    expect(mailboxesToCount([plain], 1e9)).toEqual([]);
    expect(planByteQuotas([plain.address], [plain], none, 1e9)).toEqual({ receivers: [plain.address], keep: none, bounds: none, refusedBy: null });
  });

  it('a mailbox whose bound shows room is not counted: the message fits, and the bound grows by its size', () => {
    const a = quota('a@svc.test', 1000, 600);
    expect(mailboxesToCount([a], 400)).toEqual([]);
    expect(planByteQuotas([a.address], [a], none, 400)).toEqual({ receivers: [a.address], keep: none, bounds: new Map([[a.address, 1000]]), refusedBy: null });
  });

  it('a bound that does not show room (or none) is counted; the count decides whether to trim, and to what', () => {
    const a = quota('a@svc.test', 1000, 601);
    expect(mailboxesToCount([a, quota('b@svc.test', 1000, null)], 400)).toEqual(['a@svc.test', 'b@svc.test']);
    // the bound was high (messages deleted since): the count shows room, nothing is trimmed
    expect(planByteQuotas([a.address], [a], new Map([[a.address, 100]]), 400)).toMatchObject({ keep: none, bounds: new Map([[a.address, 500]]) });
    // one byte over: the mailbox keeps only what fits beside the new message
    expect(planByteQuotas([a.address], [a], new Map([[a.address, 601]]), 400)).toMatchObject({ keep: new Map([[a.address, 600]]), bounds: new Map([[a.address, 1001]]) });
    // a message of exactly the quota keeps nothing else
    expect(planByteQuotas([a.address], [a], new Map([[a.address, 900]]), 1000).keep).toEqual(new Map([[a.address, 0]]));
  });

  it('a mailbox whose quota is smaller than the message is skipped, not counted; the others, in recipient order, still take it', () => {
    const a = quota('a@svc.test', 1000, 0);
    const b = quota('b@svc.test', 500, 0);
    expect(mailboxesToCount([a, b, plain], 700)).toEqual([]);
    const plan = planByteQuotas([b.address, plain.address, a.address], [a, b, plain], none, 700);
    expect(plan).toEqual({ receivers: [plain.address, a.address], keep: none, bounds: new Map([[a.address, 700]]), refusedBy: 500 });
  });

  it('no recipient can take it: no receivers, and the smallest quota that refused it', () => {
    const quotas = [quota('a@svc.test', 1000, 0), quota('b@svc.test', 500, 0)];
    expect(planByteQuotas(['a@svc.test', 'b@svc.test'], quotas, none, 1001)).toEqual({ receivers: [], keep: none, bounds: none, refusedBy: 500 });
  });
});
