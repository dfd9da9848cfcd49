import type { Adapter, AdapterDeps, AdapterFactory } from './adapter.js';
import { loggingAdapter } from './logging.adapter.js';
import { networkPostbackAdapter } from './network-postback.adapter.js';

/** Every adapter. Adding a network is a new file in this folder and one line here; the core is unchanged. */
export const ADAPTERS: readonly AdapterFactory[] = [loggingAdapter, networkPostbackAdapter];

export function createAdapters(deps: AdapterDeps): Adapter[] {
  return ADAPTERS.map((make) => make(deps));
}
