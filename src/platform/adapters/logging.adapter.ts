import { ALL_EVENTS, defineAdapter } from './adapter.js';

/** The generic template: writes each event to the log. A starting point, and proof the pipeline runs. */
export const loggingAdapter = defineAdapter({
  name: 'logging',
  description: 'Writes every event to the service log',
  events: ALL_EVENTS,
  env: {},
  create: (_env, { logger }) => ({
    enabled: true,
    async onEvent(event, data, meta) {
      logger.info({ adapter: 'logging', event, event_id: meta.id, data }, 'event');
    },
  }),
});
