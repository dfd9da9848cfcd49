import type { AdapterDefinition } from './adapter.js';
import { loggingAdapter } from './logging.adapter.js';
import { networkPostbackAdapter } from './network-postback.adapter.js';

/**
 * Every adapter. Adding a network is a new file in this folder (`defineAdapter`: the events it wants,
 * its environment variables, its onEvent) and one line here; the config loader validates its variables
 * at start and the delivery worker gives it its own delivery rows. The core is unchanged.
 */
export const ADAPTERS: readonly AdapterDefinition[] = [loggingAdapter, networkPostbackAdapter];
