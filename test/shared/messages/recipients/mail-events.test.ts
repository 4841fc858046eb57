import { afterAll, describe, expect, it } from 'vitest';
import { silentLog } from '../../../../shared/core/logger';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import { handleMailEvent, sesMailEventSchema } from '../../../../shared/messages/recipients/mail-events';
import { catalogOf } from '../../../../shared/definitions/catalog';
import { SuppressionList } from '../../../../shared/messages/recipients/suppressions';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { makeTempDir } from '../../../support/temp-dir';

/**
 * SES's bounce and complaint events (as EventBridge delivers them from the stack's configuration
 * set): a permanent bounce or a complaint suppresses the address for the report its `report` tag
 * names, and the report's owners hear of it once per address; a transient bounce changes nothing.
 */
const temp = makeTempDir('mail-events');
afterAll(() => temp.remove());
const NOW = new Date('2026-11-23T06:05:00Z');
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, email: { to: ['team@example.test', 'gone@example.test'], onFailure: ['owner@example.test'] } };

function bounce(bounceType: 'Permanent' | 'Transient', address: string) {
  return sesMailEventSchema.parse({
    'detail-type': 'Email Bounced',
    source: 'aws.ses',
    detail: {
      eventType: 'Bounce',
      mail: { tags: { report: ['weekly'], 'ses:configuration-set': ['stack-report-mail'] } },
      bounce: { bounceType, bouncedRecipients: [{ emailAddress: address }] },
    },
  });
}

describe('bounces and complaints of the reports e-mail', () => {
  it('suppresses a permanently bounced address and tells the owners once, however often it bounces', async () => {
    const ledger = new LocalLedger(temp.path('bounce'));
    const sent: OutgoingEmail[] = [];
    const deps = { ledger, definitions: catalogOf({ weekly: WEEKLY }), send: (m: OutgoingEmail) => Promise.resolve(void sent.push(m)), from: 'reports@example.test', log: silentLog, now: NOW };
    expect(await handleMailEvent(bounce('Permanent', 'Gone@Example.test'), deps)).toEqual({ report: 'weekly', suppressed: ['gone@example.test'] });
    expect(await handleMailEvent(bounce('Permanent', 'gone@example.test'), deps)).toEqual({ report: 'weekly', suppressed: [] });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: ['owner@example.test'], subject: 'Weekly: a recipient is no longer e-mailed' });
    expect(sent[0]?.text).toContain('npm run reports -- resubscribe weekly gone@example.test');
    expect(await new SuppressionList(ledger).of('weekly')).toEqual({ 'gone@example.test': { since: NOW.toISOString(), reason: 'bounced' } });
  });

  it('lets a transient bounce pass and suppresses a complaint', async () => {
    const ledger = new LocalLedger(temp.path('complaint'));
    const deps = { ledger, definitions: catalogOf({ weekly: WEEKLY }), send: undefined, from: undefined, log: silentLog, now: NOW };
    expect((await handleMailEvent(bounce('Transient', 'team@example.test'), deps)).suppressed).toEqual([]);
    const complaint = sesMailEventSchema.parse({
      'detail-type': 'Email Complaint Received',
      detail: { eventType: 'Complaint', mail: { tags: { report: ['weekly'] } }, complaint: { complainedRecipients: [{ emailAddress: 'team@example.test' }] } },
    });
    expect((await handleMailEvent(complaint, deps)).suppressed).toEqual(['team@example.test']);
    expect((await new SuppressionList(ledger).of('weekly'))['team@example.test']?.reason).toBe('complained');
  });
});
