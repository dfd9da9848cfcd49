import type { Clock } from '../clock.js';
import type { Delivery } from '../db/schema.js';
import type { SettingsService } from '../settings/settings.service.js';
import { parseRetryAfter } from './backoff.js';
import { type DeliveryOptions, type DeliveryTarget, failedOutcome, type Outcome, type StoredEvent } from './delivery-target.js';
import type { HttpSender } from './http-sender.js';
import { webhookHeaders } from './signature.js';

export const WEBHOOK_TARGET = 'webhook';

/**
 * The admin-configured webhook (CONTRACT §9): every event while `webhook_url` is set, that URL
 * snapshotted on the delivery row at fan-out; POSTed with both signatures; 2xx within the timeout is
 * success, a 3xx is not followed.
 */
export class WebhookTarget implements DeliveryTarget {
  readonly name = WEBHOOK_TARGET;
  readonly kind = 'webhook';

  constructor(
    private readonly settings: SettingsService,
    private readonly sender: HttpSender,
    private readonly clock: Clock,
    private readonly options: DeliveryOptions,
  ) {}

  async open(): Promise<{ url: string } | null> {
    const { webhook_url } = await this.settings.get();
    return webhook_url ? { url: webhook_url } : null;
  }

  wants(): boolean {
    return true;
  }

  async deliver({ body, envelope }: StoredEvent, d: Delivery): Promise<Outcome> {
    if (!d.url) return failedOutcome('no webhook URL');
    const { webhook_secret } = await this.settings.get();
    const ts = Math.floor(this.clock.now() / 1000);
    const res = await this.sender.send({
      method: 'POST',
      url: d.url,
      headers: webhookHeaders(webhook_secret, envelope, body, ts),
      body,
      timeoutMs: this.options.timeoutMs,
    });
    const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
    let error = res.error ?? null;
    if (!ok && !error && res.statusCode !== undefined) {
      error = res.statusCode >= 300 && res.statusCode < 400 ? `redirect (${res.statusCode}) not followed` : `HTTP ${res.statusCode}`;
    }
    return {
      ok,
      statusCode: res.statusCode ?? null,
      error,
      responseBody: res.responseBody ?? null,
      latencyMs: res.latencyMs,
      retryAfterMs: parseRetryAfter(res.retryAfter, this.clock.now()),
    };
  }

  close(): void {
    this.sender.close();
  }
}
