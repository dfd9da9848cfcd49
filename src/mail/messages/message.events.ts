import { toIso } from '../../platform/clock.js';
import type { EventData } from '../../platform/events/catalogue.js';

/** One stored copy of a message, as `message.received` reports it. */
export interface ReceivedCopy {
  readonly id: string;
  readonly mailbox: string;
  readonly from: string | null;
  readonly subject: string | null;
  readonly code: string | null;
  /** The verification link found at intake, when the intake finds one; absent: null. */
  readonly verification_link?: string | null;
  readonly received_at: number;
}

/** `message.received`: one mailbox's copy, and the mailbox's affiliate. */
export function messageReceivedPayload(copy: ReceivedCopy, refCode: string | null): EventData<'message.received'> {
  return {
    message: {
      id: copy.id,
      mailbox: copy.mailbox,
      from: copy.from,
      subject: copy.subject,
      code: copy.code,
      verification_link: copy.verification_link ?? null,
      received_at: toIso(copy.received_at),
    },
    ref_code: refCode,
  };
}
