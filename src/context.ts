import pino, { type Logger } from 'pino';
import { AffiliateService } from './affiliates/affiliate.service.js';
import { AdminAuthService } from './auth/admin-auth.service.js';
import { ApiKeyService } from './auth/api-key.service.js';
import { ClickService } from './clicks/click.service.js';
import { CommissionService } from './commissions/commission.service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type DatabaseHandle, type Db, type Dialect, type OpenOptions, openDatabase } from './db/database.js';
import { OutboxSignal } from './events/outbox.js';
import { MailboxService } from './mailboxes/mailbox.service.js';
import { ReportService } from './reports/report.service.js';
import { OrderService } from './orders/order.service.js';
import { SettingsService } from './settings/settings.service.js';
import { WithdrawalService } from './withdrawals/withdrawal.service.js';
import { MailEvents } from './mail/mail-events.js';
import { MailRetentionTask } from './mail/mail-retention.js';
import { MailService } from './mail/mail.service.js';
import { SmtpGateway } from './smtp/smtp-gateway.js';

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
}

export interface ContextOverrides {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly handle?: DatabaseHandle;
  readonly databaseOptions?: OpenOptions;
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
  const services: Services = {
    settings,
    apiKeys: new ApiKeyService(db, clock),
    adminAuth: new AdminAuthService(db, clock),
    affiliates,
    mailboxes: new MailboxService(db, clock, config.mailDomains, affiliates),
    clicks: new ClickService(db, clock, settings, affiliates, logger),
    reports: new ReportService(db, clock),
    orders: new OrderService(db, clock, settings, commissions, outbox),
    commissions,
    withdrawals: new WithdrawalService(db, clock, outbox),
    mail: new MailService(db, handle.dialect, clock, settings, mailEvents, config.mailDomains),
  };
  const background: BackgroundTask[] = [];
  background.push(mailEvents, new MailRetentionTask(services.mail, logger));
  if (config.smtp) {
    const { port, host, tlsKey, tlsCert } = config.smtp;
    const smtpOptions = { port, host, tlsKey, tlsCert, maxBytes: config.inboundMaxBytes, hostname: config.mailDomains[0] ?? 'localhost' };
    background.push(new SmtpGateway(services.mail, smtpOptions, clock, logger));
  }
  return { config, handle, db, dialect: handle.dialect, clock, logger, services, outbox, background };
}
