import { RateLimitedError } from '../errors.js';
import type { LeaseKey, Leases } from './leases.js';

/** README.md#limits: long-lived requests one client may have open at once, over every instance (SVC_LONG_REQUESTS_PER_CLIENT). */
export const DEFAULT_LONG_REQUESTS_PER_CLIENT = 50;

/** What a client refused for its own budget is told to wait: its slots free only as its own requests end. */
export const CLIENT_BUDGET_RETRY_AFTER_S = 30;

/** A key a long-lived request also counts under (a mailbox's waits or streams), and how a refusal for it reads. */
export interface ResourceSlot extends LeaseKey {
  readonly retryAfterS: number;
  readonly message: string;
}

/** The lease key of a client's budget: one for every kind of long-lived request, so they share it. */
export function clientBudgetKey(client: string): string {
  return `long-client:${client}`;
}

/**
 * Slots of one kind of long-lived request (message waits, event streams, MCP requests). Every kind counts
 * against one budget per client (clientKey: an IPv4 address, an IPv6 /64), `perClient` open at once, and
 * a kind may count per resource as well (five waits per mailbox); both are leases (leases.ts), taken in one
 * transaction or not at all, so the caps hold for the sum over every instance sharing the database
 * (README.md#shared-limits). Each kind has its own Leases, so `open` counts that kind in this process.
 * Proved by test/integration/long-requests.test.ts.
 */
export class LongRequestSlots {
  constructor(
    private readonly leases: Leases,
    readonly perClient: number,
  ) {}

  /**
   * Takes a slot of the client's budget (none when `client` is undefined: the request that carries this one
   * holds it already, as an MCP request does for its wait_for_message) and of every resource, or none of
   * them and throws RateLimitedError (429) worded for the full one. The answer releases them, once.
   */
  async acquire(client: string | undefined, resources: readonly ResourceSlot[] = []): Promise<() => void> {
    const keys: LeaseKey[] = [...resources];
    if (client !== undefined) keys.push({ key: clientBudgetKey(client), max: this.perClient });
    const taken = await this.leases.take(keys);
    if ('release' in taken) return taken.release;
    const resource = resources.find((r) => r.key === taken.full.key);
    if (resource) throw new RateLimitedError(resource.retryAfterS, resource.message);
    throw new RateLimitedError(
      CLIENT_BUDGET_RETRY_AFTER_S,
      `This client has ${this.perClient} long-lived requests open (message waits, event streams, MCP requests): close one first`,
    );
  }

  /** Requests of this kind open in this process (a released one counts until its lease is gone). */
  get open(): number {
    return this.leases.open;
  }

  /** Renews this kind's leases now (as its timer does every stream heartbeat). */
  renew(): Promise<void> {
    return this.leases.renew();
  }

  /** Gives back this kind's leases; the service's destroy calls it before the database closes. */
  close(): Promise<void> {
    return this.leases.close();
  }

  /** Deletes expired leases of every kind (a crashed instance's); the retention job calls it. */
  purgeExpired(): Promise<number> {
    return this.leases.purgeExpired();
  }
}
