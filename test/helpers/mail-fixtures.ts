import { insertMailbox } from '../../src/mail/mailboxes/mailbox.repository.js';
import { newMailboxToken } from '../../src/mail/mailboxes/mailbox-token.js';
import type { TestService } from './service.js';

export interface TestMailbox {
  readonly address: string;
  readonly token: string;
}

/** Creates a mailbox straight in the database (the mailbox endpoints belong to another feature). */
export async function createTestMailbox(t: TestService, address: string, refCode: string | null = null): Promise<TestMailbox> {
  const { token, hash } = newMailboxToken();
  const normalized = address.trim().toLowerCase();
  const [local, domain] = normalized.split('@') as [string, string];
  const ok = await insertMailbox(t.service.ctx.db, {
    address: normalized,
    local_part: local,
    domain,
    ref_code: refCode,
    token_hash: hash,
    created_at: t.clock.now(),
  });
  if (!ok) throw new Error(`mailbox ${normalized} exists`);
  return { address: normalized, token };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
