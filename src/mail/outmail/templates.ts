/**
 * The mails svc sends (docs/api.md, "Outbound mail"), each as plain text and HTML. Every value is
 * escaped for HTML; links are built from the base URL; each mail ends with why it came and how to stop
 * it. A name someone typed is shown as data (quotedName), after fixed words, never as the first words.
 * The HTML is a table layout with inline styles only, and passes the project's own mail sanitiser
 * unchanged (test/unit/outmail-templates.test.ts).
 */

export const MAIL_TEMPLATES = ['invitation', 'password_reset', 'email_confirmation', 'commission_approved', 'withdrawal_paid', 'affiliate_review', 'webhook_failing'] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export type TemplateValues = {
  invitation: { name: string | null; refCode: string; link: string; expiresAt: string };
  password_reset: { name: string | null; refCode: string; link: string; expiresAt: string };
  email_confirmation: { name: string | null; refCode: string; link: string; expiresAt: string };
  commission_approved: { name: string | null; refCode: string; orderId: string; commission: string; settingsLink: string; portalLink: string };
  withdrawal_paid: { name: string | null; refCode: string; amount: string; withdrawalId: string; settingsLink: string; portalLink: string };
  affiliate_review: { refCode: string; name: string | null; email: string | null; link: string; settingsLink: string };
  webhook_failing: { eventType: string; eventId: string; lastError: string | null; link: string; settingsLink: string };
};

/** Text for an HTML text node (the same escapes the sanitiser writes). */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A double-quoted attribute value. */
function escapeAttribute(value: string): string {
  return escapeHtml(value).replace(/"/g, '&quot;');
}

/** A header value cannot carry a line break (header injection). */
function oneLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').slice(0, 200);
}

interface Layout {
  readonly subject: string;
  readonly greeting: string;
  readonly paragraphs: readonly string[];
  readonly action?: { readonly label: string; readonly url: string };
  /** After the action: e.g. how long the link lasts. */
  readonly after?: readonly string[];
  /** Why the mail came and how to stop it. */
  readonly footer: string;
  readonly footerLink?: { readonly label: string; readonly url: string };
}

const FONT = 'font-family: Arial, Helvetica, sans-serif';

function render(l: Layout): RenderedMail {
  const text = [
    l.greeting,
    '',
    ...l.paragraphs.flatMap((p) => [p, '']),
    ...(l.action ? [`${l.action.label}: ${l.action.url}`, ''] : []),
    ...(l.after ?? []).flatMap((p) => [p, '']),
    '-- ',
    l.footer,
    ...(l.footerLink ? [`${l.footerLink.label}: ${l.footerLink.url}`] : []),
    '',
  ].join('\n');
  const para = (p: string) => `<p style="margin: 0 0 16px 0; ${FONT}; font-size: 15px; line-height: 22px; color: #1f2933;">${escapeHtml(p)}</p>`;
  const link = (label: string, url: string, style: string) =>
    `<a href="${escapeAttribute(url)}" target="_blank" rel="noopener noreferrer nofollow" style="${style}">${escapeHtml(label)}</a>`;
  const button = l.action
    ? `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin: 8px 0 24px 0;"><tbody><tr><td bgcolor="#2563eb" style="border-radius: 6px; background-color: #2563eb;">${link(
        l.action.label,
        l.action.url,
        `display: inline-block; padding: 12px 20px; ${FONT}; font-size: 15px; font-weight: bold; color: #ffffff; text-decoration: none;`,
      )}</td></tr></tbody></table>${para(`Or open this address: ${l.action.url}`)}`
    : '';
  const footer = `<p style="margin: 0; ${FONT}; font-size: 12px; line-height: 18px; color: #6b7280;">${escapeHtml(l.footer)}${
    l.footerLink ? ` ${link(l.footerLink.label, l.footerLink.url, 'color: #6b7280;')}` : ''
  }</p>`;
  const html =
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color: #f3f4f6;"><tbody><tr><td align="center" style="padding: 24px 12px;">` +
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="max-width: 600px; width: 100%; background-color: #ffffff; border-radius: 8px;"><tbody>` +
    `<tr><td style="padding: 32px 32px 8px 32px;">${para(l.greeting)}${l.paragraphs.map(para).join('')}${button}${(l.after ?? []).map(para).join('')}</td></tr>` +
    `<tr><td style="padding: 16px 32px 32px 32px; border-top: 1px solid #e5e7eb;">${footer}</td></tr>` +
    `</tbody></table></td></tr></tbody></table>`;
  return { subject: oneLine(l.subject), text, html };
}

/** The longest name a mail shows, in characters; a longer one is cut and ends with "…". */
export const MAIL_NAME_MAX = 60;

// C0/C1 controls, format characters (bidi overrides and isolates, zero-width, soft hyphen) and
// variation selectors: nothing a reader can see, everything a forger can use.
const INVISIBLE = /[\p{Cc}\p{Cf}]|\p{Variation_Selector}/gu;
// Every other kind of line or space break becomes one space.
const BREAKS = /[\s\u2028\u2029]+/gu;

/**
 * A name someone typed, shown in mail as data (docs/api.md#outbound-mail): invisible characters removed,
 * one line, at most MAIL_NAME_MAX characters, its own double quotes turned into single ones so it cannot
 * close the quotes it is shown in. The caller writes it after fixed words, never first.
 * Proved by test/unit/outmail-templates.test.ts.
 */
export function quotedName(name: string | null): string | undefined {
  const clean = (name ?? '').replace(BREAKS, ' ').replace(INVISIBLE, '').replace(/["\u201C\u201D\u201E\u201F\u2033\u2036]/g, "'").trim();
  if (clean === '') return undefined;
  const chars = [...clean];
  return `"${chars.length > MAIL_NAME_MAX ? `${chars.slice(0, MAIL_NAME_MAX - 1).join('').trimEnd()}…` : clean}"`;
}

/** Any other outsider text shown in mail (an email address, an error message): one line, no invisible characters, bounded. */
function plainLine(value: string, max = 300): string {
  const chars = [...value.replace(BREAKS, ' ').replace(INVISIBLE, '').trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** Fixed words first; then which account the mail is about, the name quoted after them. */
const greeting = 'Hello,';
const forAccount = (name: string | null, refCode: string) => {
  const quoted = quotedName(name);
  return `This mail is for the affiliate account ${refCode}${quoted ? `, named ${quoted}` : ''}.`;
};

/** A notification an affiliate can turn off: one paragraph, a link to the portal, and where to turn them off. */
function notification(
  x: { name: string | null; refCode: string; portalLink: string; settingsLink: string },
  kind: 'commission' | 'payout',
  subject: string,
  paragraph: string,
): RenderedMail {
  return render({
    subject,
    greeting,
    paragraphs: [forAccount(x.name, x.refCode), paragraph],
    action: { label: 'Open the portal', url: x.portalLink },
    footer: `You received this mail because ${kind} notifications are on for your affiliate account.`,
    footerLink: { label: 'Turn them off in your settings', url: x.settingsLink },
  });
}

export function renderMail<T extends MailTemplate>(template: T, v: TemplateValues[T]): RenderedMail {
  switch (template) {
    case 'invitation': {
      const x = v as TemplateValues['invitation'];
      return render({
        subject: 'Your invitation to the affiliate portal',
        greeting,
        paragraphs: [forAccount(x.name, x.refCode), `You are invited to the affiliate portal as ${x.refCode}. Choose a password to sign in and see your clicks, commissions and payouts.`],
        action: { label: 'Choose your password', url: x.link },
        after: [`The link works once, until ${x.expiresAt}.`],
        footer: 'You received this mail because the program administrator invited you. Invitations are always sent; if you did not expect it, ignore it.',
      });
    }
    case 'password_reset': {
      const x = v as TemplateValues['password_reset'];
      return render({
        subject: 'Reset your affiliate portal password',
        greeting,
        paragraphs: [forAccount(x.name, x.refCode), `Someone asked to reset the password of the affiliate account ${x.refCode}. If it was you, choose a new password:`],
        action: { label: 'Choose a new password', url: x.link },
        after: [`The link works once, until ${x.expiresAt}. Choosing a new password signs out every other session.`],
        footer: 'You received this mail because a password reset was asked for your account. Reset mails are always sent; if you did not ask, ignore it and your password stays as it is.',
      });
    }
    case 'email_confirmation': {
      const x = v as TemplateValues['email_confirmation'];
      return render({
        subject: 'Confirm your email address for the affiliate portal',
        greeting,
        paragraphs: [
          forAccount(x.name, x.refCode),
          `Someone signed up to the affiliate portal as ${x.refCode} with this email address. If it was you, confirm the address: then you can sign in and reset your password with it, and notifications come to it.`,
        ],
        action: { label: 'Confirm this address', url: x.link },
        after: [`The link works once, until ${x.expiresAt}. Until the address is confirmed, sign in with the ref code ${x.refCode}.`],
        footer: 'You received this mail because this address was given at a sign-up to the affiliate portal. If it was not you, ignore it: svc does not use the address until it is confirmed.',
      });
    }
    case 'commission_approved': {
      const x = v as TemplateValues['commission_approved'];
      return notification(x, 'commission', `Commission approved: ${x.commission}`, `Your commission of ${x.commission} on order ${x.orderId} was approved. It counts towards your available balance.`);
    }
    case 'withdrawal_paid': {
      const x = v as TemplateValues['withdrawal_paid'];
      return notification(x, 'payout', `Withdrawal paid: ${x.amount}`, `Your withdrawal ${x.withdrawalId} of ${x.amount} was paid.`);
    }
    case 'affiliate_review': {
      const x = v as TemplateValues['affiliate_review'];
      return render({
        subject: `Affiliate awaiting review: ${x.refCode}`,
        greeting: 'Hello,',
        paragraphs: [
          `An affiliate signed up as ${x.refCode} and waits for your review.`,
          `Name: ${quotedName(x.name) ?? 'none given'}. Email (not confirmed yet): ${x.email ? plainLine(x.email) : 'none given'}.`,
        ],
        action: { label: 'Review the affiliate', url: x.link },
        footer: 'You received this mail because your address is the admin_email setting of this svc.',
        footerLink: { label: 'Clear it to stop these mails', url: x.settingsLink },
      });
    }
    case 'webhook_failing': {
      const x = v as TemplateValues['webhook_failing'];
      return render({
        subject: `Webhook failing: ${x.eventType} ${x.eventId}`,
        greeting: 'Hello,',
        paragraphs: [`The webhook delivery of ${x.eventType} ${x.eventId} failed after every retry.`, `Last error: ${x.lastError ? plainLine(x.lastError) : 'none recorded'}`],
        action: { label: 'See the deliveries', url: x.link },
        footer: 'You received this mail because your address is the admin_email setting of this svc.',
        footerLink: { label: 'Clear it to stop these mails', url: x.settingsLink },
      });
    }
  }
  throw new Error(`unknown mail template ${String(template)}`);
}
