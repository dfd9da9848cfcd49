import { PayoutService } from './loop/payouts/payout.service.js';
import { PayoutScheduleTask } from './platform/worker/payout-schedule.js';
import { anyOrderExists } from './loop/orders/order.repository.js';
import { IntegrationService } from './loop/integrations/integration.service.js';
import { AdapterTarget } from './platform/adapters/adapter-target.js';
import { AffiliateService } from './loop/affiliates/affiliate.service.js';
import { AdminAuthService } from './platform/auth/admin-auth.service.js';
import { AdminUserService } from './platform/auth/admin-users.service.js';
import { ApiKeyService } from './platform/auth/api-key.service.js';
import { purgeLoginAttempts } from './platform/auth/login-throttle.js';
import { type ClickBatchWriter, clickBatchWriter } from './loop/clicks/click.repository.js';
import { ClickService } from './loop/clicks/click.service.js';
import { CommissionService } from './loop/commissions/commission.service.js';
import { CommissionRuleService } from './loop/commission-rules/commission-rule.service.js';
import { FraudService } from './loop/fraud/fraud.service.js';
import { HoldingPeriodTask } from './platform/worker/holding-period.js';
import { type Clock, systemClock } from './platform/clock.js';
import type { Config } from './config.js';
import { type DatabaseHandle, type Db, type Dialect, type OpenOptions, openDatabase } from './platform/db/database.js';
import { OutboxSignal } from './platform/events/outbox.js';
import { MailboxService } from './mail/mailboxes/mailbox.service.js';
import { DomainService } from './mail/domains/domain.service.js';
import { CatchAllCap } from './mail/messages/catch-all-cap.js';
import { ReportService } from './loop/reports/report.service.js';
import { AffiliatePortalService } from './loop/portal/affiliate-portal.service.js';
import { PortalAuthService } from './loop/portal/portal-auth.service.js';
import { OrderService } from './loop/orders/order.service.js';
import { SettingsService } from './platform/settings/settings.service.js';
import type { AreaSettingFields } from './platform/settings/settings.schemas.js';
import { rateBpField } from './loop/ledger/rate.js';
import { bicField, ibanField, sepaTextField } from './loop/payouts/payout-details.js';
import { WithdrawalService } from './loop/withdrawals/withdrawal.service.js';
import { LiveStreamSlots } from './mail/messages/live-streams.js';
import { MessageWaits } from './mail/messages/message-waits.js';
import { Leases } from './platform/limits/leases.js';
import { LongRequestSlots } from './platform/limits/long-requests.js';
import { RateWindows } from './platform/limits/rate-windows.js';
import { randomToken } from './platform/ids.js';
import { MailEvents } from './mail/messages/mail-events.js';
import { ContentJobFailed, ContentPool, DEFAULT_CONTENT_POOL } from './mail/messages/content-pool.js';
import type { JsonBodyReader } from './platform/http/input-guards.js';
import { MailReader } from './mail/messages/mail-reader.service.js';
import { MailtmService } from './mail/mailtm/mailtm.service.js';
import { MailService } from './mail/messages/mail.service.js';
import { SmtpGateway } from './mail/smtp/smtp-gateway.js';
import type { BackgroundTask } from './platform/background-task.js';
import { createLogger, type Logger } from './platform/logger.js';
import { DeliveryAdminService } from './platform/webhooks/delivery-admin.service.js';
import { DeliveryDispatcher } from './platform/webhooks/delivery-dispatcher.js';
import { DeliveryQueueRepository } from './platform/webhooks/delivery-queue.repository.js';
import { DeliveryRetention } from './platform/webhooks/delivery-retention.js';
import { type DeliveryOptions, defaultDeliveryOptions, MAIL_TARGET } from './platform/webhooks/delivery-target.js';
import { findEventPayloads } from './platform/webhooks/delivery-queue.repository.js';
import { MailTarget } from './mail/outmail/mail-target.js';
import { mailPayloads } from './mail/outmail/outbound-mail.repository.js';
import { OutboundMailService } from './mail/outmail/outbound-mail.service.js';
import { WebhookTarget } from './platform/webhooks/webhook-target.js';
import { HttpSender } from './platform/webhooks/http-sender.js';
import { checkOutboundUrl, type Resolver, systemResolver } from './platform/webhooks/ssrf.js';
import { DeliveryWorker } from './platform/worker/delivery-worker.js';
import { RetentionTask } from './platform/worker/retention.js';
import { DailyTask } from './platform/worker/daily-task.js';
import { ClickLog } from './loop/clicks/click-log.service.js';
import { Metrics } from './platform/metrics/metrics.js';

export interface Services {
  readonly settings: SettingsService;
  readonly apiKeys: ApiKeyService;
  readonly adminAuth: AdminAuthService;
  readonly adminUsers: AdminUserService;
  readonly affiliates: AffiliateService;
  readonly mailboxes: MailboxService;
  readonly domains: DomainService;
  readonly clicks: ClickService;
  readonly clickLog: ClickLog;
  readonly reports: ReportService;
  readonly orders: OrderService;
  readonly integrations: IntegrationService;
  readonly commissions: CommissionService;
  readonly commissionRules: CommissionRuleService;
  readonly fraud: FraudService;
  readonly withdrawals: WithdrawalService;
  readonly payouts: PayoutService;
  readonly mail: MailService;
  readonly mailReader: MailReader;
  readonly messageWaits: MessageWaits;
  readonly mailtm: MailtmService;
  readonly deliveries: DeliveryAdminService;
  readonly deliveryRetention: DeliveryRetention;
  readonly portalAuth: PortalAuthService;
  readonly portal: AffiliatePortalService;
  readonly outboundMail: OutboundMailService;
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
  /** Fans events out and delivers them; the worker pumps it, tests drain it. */
  readonly dispatcher: DeliveryDispatcher;
  /** Sends outbound mail (its own lane of the delivery queue); its worker pumps it, tests drain it. */
  readonly mailDispatcher: DeliveryDispatcher;
  /** Started by main after the server listens, stopped before the database closes. */
  readonly background: BackgroundTask[];
  /** Prometheus metrics, when SVC_METRICS_TOKEN is set. */
  readonly metrics?: Metrics;
  /** Open live streams per mailbox and per client, counted over every instance (README.md#limits, README.md#shared-limits). */
  readonly liveStreams: LiveStreamSlots;
  /** Open `POST /mcp` requests, in their clients' long-request budget with waits and streams (README.md#limits). */
  readonly mcpRequests: LongRequestSlots;
  /** Per-client request counters shared by every instance (the public routes' rate limits, README.md#shared-limits). */
  readonly rateWindows: RateWindows;
  /** The worker processes that run every step on outsider bytes (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop); closed by the service's destroy. */
  readonly contentPool: ContentPool;
  /** Large JSON bodies, read by the content pool (a job over its limits is a 400). */
  readonly jsonBodies: JsonBodyReader;
}

export interface ContextOverrides {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly handle?: DatabaseHandle;
  readonly databaseOptions?: OpenOptions;
  /** DNS for outbound URLs (SSRF guard); tests inject one to simulate names and rebinding. */
  readonly resolver?: Resolver;
}

/** The settings whose rules are the affiliate loop's: the global rate (the ledger's), the SEPA debtor (payouts'). */
export const LOOP_SETTING_FIELDS: AreaSettingFields = { rateBp: rateBpField, sepaText: sepaTextField, iban: ibanField, bic: bicField };

/** The click writer, counting what it stored. */
function countedClicks(write: ClickBatchWriter, metrics: Metrics): ClickBatchWriter {
  return async (batch, counts, slot) => {
    const ids = await write(batch, counts, slot);
    metrics.clicksRecorded.inc(batch.length);
    return ids;
  };
}

/** Builds every dependency from the config; tests override pieces (clock, logger, database). */
export function createContext(config: Config, overrides: ContextOverrides = {}): AppContext {
  // NO_COLOR (no-color.org): any value turns colours off
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, format: config.logFormat, colorize: process.stdout.isTTY === true && !process.env.NO_COLOR });
  const clock = overrides.clock ?? systemClock;
  const handle = overrides.handle ?? openDatabase(config.database, overrides.databaseOptions);
  const db = handle.db;
  const outbox = new OutboxSignal();
  const affiliates = new AffiliateService(db, clock, outbox);
  const mailEvents = new MailEvents(db, handle.dialect, `svc_mail_${handle.schema ?? 'main'}`, logger, config.database.url);
  const resolver = overrides.resolver ?? systemResolver;
  const commissionRules = new CommissionRuleService(db, clock, affiliates, () => settings.currency());
  const settings = new SettingsService(db, clock, config.baseUrl, LOOP_SETTING_FIELDS, config.webhookAllowPrivate ? undefined : (url) => checkOutboundUrl(url, resolver), {
    anyOrder: (tx) => anyOrderExists(tx),
    rescale: (tx, from, to) => commissionRules.rescaleFlats(tx, from, to),
    monthlyScheduleStarts: (tx, now) => payouts.monthlyScheduleStarts(tx, now),
  });
  const currency = () => settings.currency();
  const commissions = new CommissionService(db, clock, outbox, async () => (await settings.get()).holding_days, currency);
  const fraud = new FraudService(db, clock, settings, outbox, logger, () => commissions.approveDue(), async () => (await domains.list()).map((d) => d.domain));
  const sender = new HttpSender(config.webhookAllowPrivate, resolver);
  const deliveryOptions = defaultDeliveryOptions();
  const adapterDeps = { logger, db, http: sender, timeoutMs: () => deliveryOptions.timeoutMs };
  const adapters = config.adapters.map(({ definition, env }) => definition.create(env, adapterDeps));
  const deliveries = new DeliveryAdminService(db, clock, settings, outbox, adapters);
  const metrics = config.metricsToken ? new Metrics(() => deliveries.queueStats()) : undefined;
  const queue = new DeliveryQueueRepository(handle.dialect);
  const mailSignal = new OutboxSignal();
  const outboundMail = new OutboundMailService(db, clock, config.baseUrl, config.outboundMail, mailSignal);
  const dispatcher = new DeliveryDispatcher({
    db,
    clock,
    logger,
    queue,
    lane: { claims: { except: MAIL_TARGET }, fansOut: true, payloads: findEventPayloads },
    // the mails events cause are queued as the events fan out, exactly once; wake the mail lane after
    onFanOut: async (tx, events) => {
      await outboundMail.onFanOut(tx, events);
      setImmediate(() => mailSignal.kick());
    },
    onFailed: async (tx, ids, now) => {
      await outboundMail.onDeliveriesFailed(tx, ids, now);
      setImmediate(() => mailSignal.kick());
    },
    targets: [new WebhookTarget(settings, sender, clock, deliveryOptions), ...adapters.map((a) => new AdapterTarget(a, deliveryOptions))],
    options: deliveryOptions,
    onAttempt: metrics ? (kind, status, latencyMs) => metrics.observeDeliveryAttempt(kind, status, latencyMs) : undefined,
  });
  // Its own slots, timeout and lease: a dead or slow SMTP server never holds up the webhook or a request.
  const mailOptions: DeliveryOptions = { ...defaultDeliveryOptions(), timeoutMs: 30_000, leaseMs: 120_000, concurrency: 4 };
  const mailDispatcher = new DeliveryDispatcher({
    db,
    clock,
    logger,
    queue,
    targets: config.outboundMail ? [new MailTarget(config.outboundMail, mailOptions)] : [],
    options: mailOptions,
    lane: { claims: { only: MAIL_TARGET }, fansOut: false, payloads: mailPayloads },
    onAttempt: metrics ? (kind, status, latencyMs) => metrics.observeDeliveryAttempt(kind, status, latencyMs) : undefined,
  });
  const deliveryRetention = new DeliveryRetention(db, clock);
  const rateWindows = new RateWindows(db, clock);
  const clickWriter = clickBatchWriter(handle);
  const contentPool = new ContentPool({
    ...DEFAULT_CONTENT_POOL,
    threads: config.contentPool.workers,
    maxQueue: config.contentPool.queue,
    timeLimitMs: config.contentPool.timeLimitMs,
    htmlTimeLimitMs: config.contentPool.htmlTimeLimitMs,
    memoryLimitMb: config.contentPool.memoryLimitMb,
  });
  const domains = new DomainService(db, clock);
  // docs/api.md#click-log: several click batches in flight on PostgreSQL; SQLite writes one at a time anyway
  const clickBatches = handle.dialect === 'postgres' ? config.clickBatchesInFlight : 1;
  const clicks = new ClickService(db, clock, settings, affiliates, fraud, logger, metrics ? countedClicks(clickWriter, metrics) : clickWriter, clickBatches);
  const clickLog = new ClickLog(db, handle.dialect, clock, settings, logger);
  const mailboxes = new MailboxService(db, clock, domains, affiliates, clicks);
  const mailReader = new MailReader(db, handle.dialect, contentPool);
  // One kind of long-lived request (waits, streams, MCP requests): its own leases, one budget per client for all kinds.
  const longRequests = () => new LongRequestSlots(new Leases(db, clock, logger, randomToken(16), { renewEveryMs: config.http.streamHeartbeatMs }), config.longRequestsPerClient);
  const orders = new OrderService(db, clock, settings, commissions, outbox, fraud, logger);
  const mail = new MailService(db, handle.dialect, clock, settings, mailEvents, domains, mailboxes, new CatchAllCap(rateWindows, config.catchAllHourly), outbox, contentPool);
  const payouts = new PayoutService(db, clock, settings, affiliates, () => services.withdrawals, fraud);
  const services: Services = {
    settings,
    apiKeys: new ApiKeyService(db, clock),
    adminAuth: new AdminAuthService(db, clock),
    adminUsers: new AdminUserService(db, clock),
    affiliates,
    mailboxes,
    domains,
    clicks,
    clickLog,
    reports: new ReportService(db, clock, currency),
    orders,
    integrations: new IntegrationService(db, clock, settings, orders, affiliates),
    commissions,
    commissionRules,
    fraud,
    withdrawals: new WithdrawalService(db, clock, outbox, {
      currency,
      payoutDetails: (tx, refCode) => payouts.payableDetails(tx, refCode),
      minimumMinor: () => settings.payoutMinimumMinor(),
      onHold: (tx, refCode) => fraud.holding(tx, refCode),
    }),
    payouts,
    mail,
    mailReader,
    messageWaits: new MessageWaits(mail, mailReader, longRequests()),
    mailtm: new MailtmService(db, clock, domains, mailboxes, mailReader, mail, config.mailtmQuotaBytes),
    deliveries,
    deliveryRetention,
    portalAuth: new PortalAuthService(db, clock, config.baseUrl, affiliates, settings, outboundMail, rateWindows, logger),
    // the services it calls, read when a request comes (they are built in this same object)
    portal: new AffiliatePortalService(db, clock, config.baseUrl, () => services),
    outboundMail,
  };

  const liveStreams = new LiveStreamSlots(longRequests());
  const mcpRequests = longRequests();
  const background: BackgroundTask[] = [];
  const jsonBodies: JsonBodyReader = { readJson: (bytes) => contentPool.readJson(bytes), isLimitError: (err) => err instanceof ContentJobFailed };
  const retention = new RetentionTask(
    [
      { name: 'expired mail', purge: () => services.mail.purgeExpired() },
      { name: 'finished deliveries', purge: () => deliveryRetention.purgeFinished(config.deliveryRetentionDays) },
      { name: 'sent mail', purge: () => outboundMail.purgeFinished(config.deliveryRetentionDays) },
      { name: 'login attempts', purge: () => purgeLoginAttempts(db, clock) },
      { name: 'rate limit windows', purge: () => rateWindows.purgeEnded() },
      { name: 'live stream leases', purge: () => liveStreams.purgeExpired() },
    ],
    logger,
  );
  const daily = new DailyTask(db, clock, randomToken(16), [{ name: 'click-retention', run: () => clickLog.run() }], logger);
  background.push(mailEvents, retention, daily, new HoldingPeriodTask(commissions, logger), new PayoutScheduleTask(payouts, logger));
  if (config.smtp) {
    const { port, host, tlsKey, tlsCert } = config.smtp;
    const smtpOptions = { port, host, tlsKey, tlsCert, maxBytes: config.inboundMaxBytes, hostname: config.mailDomains[0] ?? 'localhost' };
    const gateway = new SmtpGateway(services.mail, smtpOptions, clock, logger);
    background.push(Object.assign(gateway, { listensOn: { what: 'SMTP', setting: { variable: 'SMTP_PORT', canTurnOff: true }, scheme: 'smtp', host, port, bound: () => gateway.address() } }));
  }
  if (config.worker) background.push(new DeliveryWorker(dispatcher, outbox, logger));
  if (!config.outboundMail) logger.warn('SVC_SMTP_URL is not set: svc sends no mail (invitations, password resets, notifications)');
  if (config.worker && config.outboundMail) background.push(new DeliveryWorker(mailDispatcher, mailSignal, logger, 'mail-worker'));
  return { config, handle, db, dialect: handle.dialect, clock, logger, services, outbox, dispatcher, mailDispatcher, background, metrics, liveStreams, mcpRequests, rateWindows, contentPool, jsonBodies };
}
