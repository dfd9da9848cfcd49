import nodemailer, { type Transporter } from 'nodemailer';
import type { OutboundMailConfig } from '../../config.js';
import type { Delivery } from '../../platform/db/schema.js';
import { type DeliveryOptions, type DeliveryTarget, failedOutcome, MAIL_TARGET, type Outcome, type StoredEvent } from '../../platform/webhooks/delivery-target.js';

/** What one queued mail sends (outbound-mail.repository.ts, mailPayloads). */
interface MailPayload {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly message_id: string;
}

/**
 * The SMTP server as a delivery target of the mail lane: one attempt is one SMTP transaction, bounded by
 * the lane's timeout (connection, greeting, every socket wait and the whole attempt). The Message-ID was
 * chosen when the mail was queued, so every retry of one mail carries the same one.
 */
export class MailTarget implements DeliveryTarget {
  readonly name = MAIL_TARGET;
  readonly kind = 'mail';
  private readonly transport: Transporter;

  constructor(
    private readonly config: OutboundMailConfig,
    private readonly options: DeliveryOptions,
  ) {
    this.transport = nodemailer.createTransport({
      host: config.host,
      port: config.port,
      secure: config.secure,
      requireTLS: config.requireTls,
      auth: config.user !== undefined ? { user: config.user, pass: config.password ?? '' } : undefined,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      // one connection per attempt: a dead server never leaves a pooled socket behind
      pool: false,
    });
  }

  async open(): Promise<{ url: null }> {
    return { url: null };
  }

  wants(): boolean {
    return false;
  }

  async deliver({ body }: StoredEvent, _delivery: Delivery): Promise<Outcome> {
    const mail = JSON.parse(body) as MailPayload;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`SMTP server did not finish within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      });
      const info = (await Promise.race([
        // one address object: a stored address with a comma is still one recipient, never a list
        this.transport.sendMail({ from: this.config.from, to: { name: '', address: mail.to }, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.message_id }),
        timeout,
      ])) as { response?: string };
      return { ok: true, statusCode: null, error: null, responseBody: info.response?.slice(0, 1000) ?? null, latencyMs: elapsed() };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return failedOutcome(message.slice(0, 1000), elapsed());
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transport.close();
  }
}
