import { describe, expect, it } from 'vitest';
import { mimeMessage } from '../../../shared/email/mime';
import { alertEmail } from '../../../shared/messages/alert-email';

/**
 * An alert's subject quotes what crossed, risk titles included (issue 52): cleaned of line breaks and
 * control characters as the report's own subject is, so a title cannot add a header or garble the
 * inbox list. Read back from the raw MIME message the mail service would get.
 */
describe('the alert e-mail subject', () => {
  it('is one clean line whatever the risk title holds', () => {
    const title = 'SEC-7 Payment\r\nBcc: victim@example.test\r\n\u0007gateway\u0085 down\u2028now';
    const email = alertEmail(
      { title: 'Alert: Train A', generated: '23 Nov 2026, 07:00 (Europe/Berlin)', runId: 's-1', lines: [{ rule: 'Risk raised to critical', text: `${title}: Low → Critical` }, { rule: 'Open risks', text: '30, above 29' }], workbookUrl: undefined },
      'weekly',
      'a@example.test',
      { from: 'reports@example.test' },
    );
    expect(email.subject).toBe('Alert: Train A: Risk raised to critical: SEC-7 Payment Bcc: victim@example.test gateway down now: Low → Critical and 1 more');
    const raw = mimeMessage(email, new Date('2026-11-23T06:00:00Z'));
    const headers = raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n');
    expect(headers.filter((h) => /^bcc:/i.test(h))).toEqual([]);
    expect(headers.filter((h) => /^subject:/i.test(h))).toHaveLength(1);
  });

  it('is cut at 200 characters with an ellipsis', () => {
    const email = alertEmail({ title: 'Alert: Train A', generated: 'now', runId: 's-1', lines: [{ rule: 'Risk', text: 'x'.repeat(500) }], workbookUrl: undefined }, 'weekly', 'a@example.test', { from: 'reports@example.test' });
    expect(email.subject).toHaveLength(200);
    expect(email.subject.endsWith('…')).toBe(true);
  });
});
