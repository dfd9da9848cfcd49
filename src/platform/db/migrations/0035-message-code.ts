import type { Kysely } from 'kysely';

/**
 * CONTRACT §14: the verification code found in a message's subject or text, stored at intake with each
 * mailbox copy so the list shows it without reading the content. Messages stored before have none (null).
 */
export function messageCode() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('messages').addColumn('code', 'text').execute();
    },
  };
}
