import { describe, expect, it } from 'vitest';
import { sanitizeMailHtml } from '../../src/mail/messages/mail-html.js';
import { MAIL_NAME_MAX, MAIL_TEMPLATES, type MailTemplate, quotedName, renderMail, type TemplateValues } from '../../src/mail/outmail/templates.js';

const evil = '<script>alert("x")</script> & co';
const valuesWith = (name: string): TemplateValues => ({
  invitation: { name, refCode: 'alice', link: 'https://svc.example/portal/accept#token=abc&x=1', expiresAt: '2026-01-01T00:00:00.000Z' },
  password_reset: { name, refCode: 'alice', link: 'https://svc.example/portal/reset#token=abc', expiresAt: '2026-01-01T00:00:00.000Z' },
  email_confirmation: { name, refCode: 'alice', link: 'https://svc.example/portal/confirm-email#token=abc', expiresAt: '2026-01-01T00:00:00.000Z' },
  commission_approved: { name, refCode: 'alice', orderId: evil, commission: '12.50', settingsLink: 'https://svc.example/portal/settings', portalLink: 'https://svc.example/portal' },
  withdrawal_paid: { name, refCode: 'alice', amount: '100.00', withdrawalId: 'wd_1', settingsLink: 'https://svc.example/portal/settings', portalLink: 'https://svc.example/portal' },
  affiliate_review: { refCode: 'alice', name, email: 'a@example.com', link: 'https://svc.example/admin/affiliates', settingsLink: 'https://svc.example/admin/settings' },
  webhook_failing: { eventType: 'order.paid', eventId: 'evt_1', lastError: evil, link: 'https://svc.example/admin/deliveries', settingsLink: 'https://svc.example/admin/settings' },
});
const values = valuesWith(evil);

/** The templates that show an affiliate's name. */
const NAMED = MAIL_TEMPLATES.filter((t) => t !== 'webhook_failing');

// A sign-up name written as a phishing line: line breaks, controls, a right-to-left override, zero-width
// characters, its own quotes, and far more than a mail shows.
const PHISHING = `Your account is suspended.\r\nPay now at https://evil.example "urgently"\u0007\u202Egnp.exe\u200B\u200D\u2028${'x'.repeat(300)}`;
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

describe('outbound mail templates', () => {
  for (const t of MAIL_TEMPLATES) {
    it(`${t}: the HTML passes the project's sanitiser unchanged, values escaped, a footer`, () => {
      const m = renderMail(t as MailTemplate, values[t] as never);
      expect(sanitizeMailHtml(m.html)).toBe(m.html);
      expect(m.html).not.toContain('<script');
      expect(m.html).toContain('<table');
      expect(m.text).toContain('You received this mail because');
      expect(m.html).toContain('You received this mail because');
      expect(m.subject).not.toMatch(/[\r\n]/);
      if (t !== 'withdrawal_paid' && t !== 'password_reset' && t !== 'invitation' && t !== 'email_confirmation' && t !== 'affiliate_review') expect(m.html).toContain('&lt;script&gt;');
    });
  }

  for (const t of NAMED) {
    it(`${t}: a hostile name is data: quoted, on one line, after fixed words, without control, bidi or zero-width characters, bounded`, () => {
      const m = renderMail(t, valuesWith(PHISHING)[t] as never);
      const quoted = quotedName(PHISHING) as string;
      // the text starts with fixed words, never with the name
      expect(m.text.split('\n')[0]).toBe('Hello,');
      expect(m.text.startsWith('Hello,\n')).toBe(true);
      // the name shows once, whole, inside its quotes, on a line that starts with fixed words
      const lines = m.text.split('\n').filter((l) => l.includes('Your account is suspended'));
      expect(lines).toHaveLength(1);
      const line = lines[0] as string;
      expect(line).toContain(quoted);
      expect(line.indexOf(quoted)).toBeGreaterThan(5);
      expect(line).toMatch(/^(This mail is for the affiliate account alice, named |Name: )"/);
      // nothing of it escapes onto a line of its own (the parts after its line breaks stay on that line)
      expect(m.text.split('\n').some((l) => l.startsWith('Pay now'))).toBe(false);
      expect(m.text.replace(/\n/g, '')).not.toMatch(INVISIBLE);
      expect(m.text).not.toMatch(/[\u2028\u2029]/);
      expect(m.html).not.toMatch(INVISIBLE);
      expect(m.subject).not.toContain('suspended');
    });
  }

  it('quotedName: one line, no invisible characters, its own double quotes made single, at most MAIL_NAME_MAX characters', () => {
    const q = quotedName(PHISHING) as string;
    expect(q.startsWith('"Your account is suspended. Pay now at https://evil.example')).toBe(true);
    expect(quotedName('Ann "the boss" Lee')).toBe(`"Ann 'the boss' Lee"`);
    expect(q.endsWith('…"')).toBe(true);
    expect([...q.slice(1, -1)].length).toBeLessThanOrEqual(MAIL_NAME_MAX);
    expect([...q.slice(1, -1)].length).toBeGreaterThan(MAIL_NAME_MAX - 3);
    expect(q.slice(1, -1)).not.toContain('"');
    expect(q).not.toMatch(INVISIBLE);
    expect(q).not.toMatch(/[\r\n\u2028\u2029]/);
    expect(quotedName('Ann')).toBe('"Ann"');
    expect(quotedName('  Ann\u200B \n Lee ')).toBe('"Ann Lee"');
    expect(quotedName('\u202E\u200B\u0007')).toBeUndefined();
    expect(quotedName(null)).toBeUndefined();
    // a name of nothing visible: the mail names the account by its ref code alone
    const m = renderMail('password_reset', { name: '\u202E\u200B', refCode: 'bob', link: 'https://svc.example/r', expiresAt: 'x' });
    expect(m.text).toContain('This mail is for the affiliate account bob.');
  });
});
