import { describe, expect, it } from 'vitest';
import { sanitizeMailHtml } from '../../src/mail/messages/mail-html.js';
import { MAIL_TEMPLATES, type MailTemplate, renderMail, type TemplateValues } from '../../src/mail/outmail/templates.js';

const evil = '<script>alert("x")</script> & co';
const values: TemplateValues = {
  invitation: { name: evil, refCode: 'alice', link: 'https://svc.example/portal/accept#token=abc&x=1', expiresAt: '2026-01-01T00:00:00.000Z' },
  password_reset: { name: evil, refCode: 'alice', link: 'https://svc.example/portal/reset#token=abc', expiresAt: '2026-01-01T00:00:00.000Z' },
  commission_approved: { name: evil, refCode: 'alice', orderId: evil, commission: '12.50', settingsLink: 'https://svc.example/portal/settings', portalLink: 'https://svc.example/portal' },
  withdrawal_paid: { name: evil, refCode: 'alice', amount: '100.00', withdrawalId: 'wd_1', settingsLink: 'https://svc.example/portal/settings', portalLink: 'https://svc.example/portal' },
  affiliate_review: { refCode: 'alice', name: evil, email: 'a@example.com', link: 'https://svc.example/admin/affiliates', settingsLink: 'https://svc.example/admin/settings' },
  webhook_failing: { eventType: 'order.paid', eventId: 'evt_1', lastError: evil, link: 'https://svc.example/admin/deliveries', settingsLink: 'https://svc.example/admin/settings' },
};

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
      if (t !== 'withdrawal_paid' && t !== 'password_reset' && t !== 'invitation' && t !== 'affiliate_review') expect(m.html).toContain('&lt;script&gt;');
    });
  }
});
