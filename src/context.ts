import pino, { type Logger } from 'pino';
import { AffiliateService } from './affiliates/affiliate.service.js';
import { AdminAuthService } from './auth/admin-auth.service.js';
import { ApiKeyService } from './auth/api-key.service.js';
import { type ClickBatchWriter, clickBatchWriter } from './clicks/click.repository.js';
import { ClickService } from './clicks/click.service.js';
import { CommissionService } from './commissions/commission.service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type DatabaseHandle, type Db, type Dialect, type OpenOptions, openDatabase } from './db/database.js';
import { createAdapters } from './adapters/registry.js';
import { OutboxSignal } from './events/outbox.js';
import { MailboxService } from './mailboxes/mailbox.service.js';
import { ReportService } from './reports/report.service.js';
import { OrderService } from './orders/order.service.js';
import { SettingsService } from './settings/settings.service.js';
import { WithdrawalService } from './withdrawals/withdrawal.service.js';
import { MailEvents } from './mail/mail-events.js';
import { MailService } from './mail/mail.service.js';
import { SmtpGateway } from './smtp/smtp-gateway.js';
import { DeliveryService, defaultDeliveryOptions } from './webhooks/delivery.service.js';
import { HttpSender } from './webhooks/http-sender.js';
import { checkOutboundUrl, type Resolver, systemResolver } from './webhooks/ssrf.js';
import { DeliveryWorker } from './worker/delivery-worker.js';
import { RetentionTask } from './worker/retention.js';
import { Metrics } from './metrics/metrics.js';

/** Something that runs beside the HTTP server (delivery worker, retention job, SMTP server). */
export interface BackgroundTask {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface Services {
  readonly settings: SettingsService;
  readonly apiKeys: ApiKeyService;
  readonly adminAuth: AdminAuthService;
  readonly affiliates: AffiliateService;
  readonly mailboxes: MailboxService;
  readonly clicks: ClickService;
  readonly reports: ReportService;
  readonly orders: OrderService;
  readonly commissions: CommissionService;
  readonly withdrawals: WithdrawalService;
  readonly mail: MailService;
  readonly deliveries: DeliveryService;
}

export interface AppContext {
  readonly config: Config;
  readonly handle: DatabaseHandle;
  readonly db: Db;
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly services: Services;
  /** Kicked after a commit that wrote events, so the delivery worker starts at once. */
  readonly outbox: OutboxSignal;
  /** Started by main after the server listens, stopped before the database closes. */
  readonly background: BackgroundTask[];
  /** Prometheus metrics, when SVC_METRICS_TOKEN is set. */
  readonly metrics?: Metrics;
}

export interface ContextOverrides {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly handle?: DatabaseHandle;
  readonly databaseOptions?: OpenOptions;
  /** DNS for outbound URLs (SSRF guard); tests inject one to simulate names and rebinding. */
  readonly resolver?: Resolver;
}

/** The click writer, counting what it stored. */
function countedClicks(write: ClickBatchWriter, metrics: Metrics): ClickBatchWriter {
  return async (batch, counts) => {
    const ids = await write(batch, counts);
    metrics.clicksRecorded.inc(batch.length);
    return ids;
  };
}

/** Builds every dependency from the config; tests override pieces (clock, logger, database). */
export function createContext(config: Config, overrides: ContextOverrides = {}): AppContext {
  const logger = overrides.logger ?? pino({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const handle = overrides.handle ?? openDatabase(config.database, overrides.databaseOptions);
  const db = handle.db;
  const outbox = new OutboxSignal();
  const affiliates = new AffiliateService(db, clock);
  const settings = new SettingsService(db, clock, config.baseUrl);
  const commissions = new CommissionService(db, clock, outbox);
  const mailEvents = new MailEvents(db, handle.dialect, `svc_mail_${handle.schema ?? 'main'}`, logger, config.database.url);
  const resolver = overrides.resolver ?? systemResolver;
  if (!config.webhookAllowPrivate) settings.outboundUrlCheck = (url) => checkOutboundUrl(url, resolver);
  const sender = new HttpSender(config.webhookAllowPrivate, resolver);
  const deliveryOptions = defaultDeliveryOptions();
  const adapters = createAdapters({ config, logger, db, http: sender, timeoutMs: () => deliveryOptions.timeoutMs });
  const deliveries = new DeliveryService(db, handle.dialect, clock, logger, settings, outbox, sender, adapters, deliveryOptions);
  const metrics = config.metricsToken ? new Metrics(() => deliveries.queueStats()) : undefined;
  if (metrics) {
    deliveryOptions.onAttempt = (target, outcome, latencyMs) =>
      metrics.deliveryAttempts.observe({ target, outcome: outcome === 'pending' ? 'retry' : outcome }, latencyMs / 1000);
  }
  const clickWriter = clickBatchWriter(handle);
  const services: Services = {
    settings,
    apiKeys: new ApiKeyService(db, clock),
    adminAuth: new AdminAuthService(db, clock),
    affiliates,
    mailboxes: new MailboxService(db, clock, config.mailDomains, affiliates),
    clicks: new ClickService(db, clock, settings, affiliates, logger, metrics ? countedClicks(clickWriter, metrics) : clickWriter),
    reports: new ReportService(db, clock),
    orders: new OrderService(db, clock, settings, commissions, outbox),
    commissions,
    withdrawals: new WithdrawalService(db, clock, outbox),
    mail: new MailService(db, handle.dialect, clock, settings, mailEvents, config.mailDomains),
    deliveries,
  };
  const background: BackgroundTask[] = [];
  const retention = new RetentionTask(
    [
      { name: 'expired mail', purge: () => services.mail.purgeExpired() },
      { name: 'finished deliveries', purge: () => deliveries.purgeFinished(config.deliveryRetentionDays) },
    ],
    logger,
  );
  background.push(mailEvents, retention);
  if (config.smtp) {
    const { port, host, tlsKey, tlsCert } = config.smtp;
    const smtpOptions = { port, host, tlsKey, tlsCert, maxBytes: config.inboundMaxBytes, hostname: config.mailDomains[0] ?? 'localhost' };
    background.push(new SmtpGateway(services.mail, smtpOptions, clock, logger));
  }
  if (config.worker) background.push(new DeliveryWorker(deliveries, outbox, logger));
  return { config, handle, db, dialect: handle.dialect, clock, logger, services, outbox, background, metrics };
}
