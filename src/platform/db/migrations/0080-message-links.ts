import type { Kysely } from 'kysely';

/**
 * The links of a message and its verification link (src/mail/messages/links.ts), found at intake with the code and
 * stored with the message's content, so reads do not look for them again. `links` is a JSON array of
 * strings; messages stored before have none (null: read as []).
 */
export function messageLinks() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('message_contents').addColumn('links', 'text').execute();
      await db.schema.alterTable('message_contents').addColumn('verification_link', 'text').execute();
    },
  };
}
