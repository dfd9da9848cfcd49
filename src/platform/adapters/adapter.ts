import type { z } from 'zod';
import type { Db } from '../db/database.js';
import { ADAPTER_EVENT_TYPES, type AdapterEventType, type EventData } from '../events/catalogue.js';
import type { Logger } from '../logger.js';
import type { HttpSender } from '../webhooks/http-sender.js';

/** What an adapter learns about the event besides its type and data. */
export interface EventMeta {
  readonly id: string;
  readonly ts: number;
}

/** `onEvent(event, data, meta)` for the subscribed types: checking `event` narrows `data`. */
export type EventArgs<T extends AdapterEventType> = { [K in T]: [event: K, data: EventData<K>, meta: EventMeta] }[T];

/** One environment variable an adapter reads: its schema (over the raw string, absent = undefined) and what it means. */
export interface EnvVariable<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** One line for the README's configuration table. */
  readonly description: string;
}

export type EnvDeclaration = Readonly<Record<string, EnvVariable>>;
export type EnvValues<E extends EnvDeclaration> = { readonly [K in keyof E]: z.output<E[K]['schema']> };

/** What an adapter may use; adapters never get the HTTP layer. */
export interface AdapterDeps {
  readonly logger: Logger;
  readonly db: Db;
  /** Outbound HTTP with the SSRF guard and timeouts. */
  readonly http: HttpSender;
  /** The delivery timeout (CONTRACT §9: 10 s) for the adapter's own calls. */
  readonly timeoutMs: () => number;
}

/**
 * An adapter as its file declares it: name, description, the event types it wants, its environment
 * variables, and `create`, which gets their validated values. `defineAdapter` checks it against the
 * catalogue and erases the types so the registry can hold any adapter.
 */
export interface AdapterSpec<E extends EnvDeclaration, T extends AdapterEventType> {
  readonly name: string;
  readonly description: string;
  /** The event types this adapter receives; a delivery row is made only for these. */
  readonly events: readonly T[];
  readonly env: E;
  create(env: EnvValues<E>, deps: AdapterDeps): {
    /** A disabled adapter gets no deliveries (e.g. its URL is not configured). */
    readonly enabled: boolean;
    onEvent(...args: EventArgs<T>): Promise<void>;
  };
}

/**
 * A running in-process receiver (seed §6: `name`, `enabled`, `onEvent(event, data)`). The delivery
 * worker calls it after commit with its own delivery row and retries, only for the types it subscribed
 * to; throwing (or not settling within the timeout) counts as a failed attempt.
 */
export interface Adapter {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly events: ReadonlySet<AdapterEventType>;
  onEvent(...args: EventArgs<AdapterEventType>): Promise<void>;
}

/** A registry entry: the declaration, with `create` taking the values the config loader validated. */
export interface AdapterDefinition {
  readonly name: string;
  readonly description: string;
  readonly events: readonly AdapterEventType[];
  readonly env: EnvDeclaration;
  create(env: Readonly<Record<string, unknown>>, deps: AdapterDeps): Adapter;
}

/** Every type an adapter can subscribe to, for adapters that want them all. */
export const ALL_EVENTS = ADAPTER_EVENT_TYPES;

export function defineAdapter<E extends EnvDeclaration, T extends AdapterEventType>(spec: AdapterSpec<E, T>): AdapterDefinition {
  const events = new Set<AdapterEventType>(spec.events);
  return {
    name: spec.name,
    description: spec.description,
    events: spec.events,
    env: spec.env,
    create(env, deps) {
      const made = spec.create(env as EnvValues<E>, deps);
      return {
        name: spec.name,
        description: spec.description,
        enabled: made.enabled,
        events,
        // The delivery target calls this only for types in `events`, so the arguments fit `T`.
        onEvent: (...args) => made.onEvent(...(args as unknown as EventArgs<T>)),
      };
    },
  };
}
