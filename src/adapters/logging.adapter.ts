import type { AdapterFactory } from './adapter.js';

/** The generic template: writes each event to the log. A starting point, and proof the pipeline runs. */
export const loggingAdapter: AdapterFactory = ({ logger }) => ({
  name: 'logging',
  description: 'Writes every event to the service log',
  enabled: true,
  async onEvent(event, data, meta) {
    logger.info({ adapter: 'logging', event, event_id: meta.id, data }, 'event');
  },
});
