import type { Kysely } from 'kysely';

/**
 * The source of a message received over POST /api/inbound is composed from its stored parts when it is
 * asked for (the same bytes each time), not at intake: composing every message cost the intake about
 * half its rate. The parts are stored already but for the HTML as sent (`html` is sanitised), kept here.
 */
export function sourceHtml() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('message_contents').addColumn('source_html', 'text').execute();
    },
  };
}
