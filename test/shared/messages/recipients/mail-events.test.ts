import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import { silentLog } from '../../../../shared/core/logger';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import { handleMailEvent, sesMailEventSchema, type MailEventDependencies } from '../../../../shared/messages/recipients/mail-events';
import { catalogOf } from '../../../../shared/definitions/catalog';
import { SuppressionList } from '../../../../shared/messages/recipients/suppressions';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { makeTempDir } from '../../../support/temp-dir';

/**
 * SES's bounce and complaint events (as EventBridge delivers them from the stack's configuration
 * set): a permanent bounce or a complaint suppresses the address for the report its `report` tag
 * names, and the report's owners hear of it once; a transient bounce changes nothing. An event is
 * trusted only as far as it matches what was sent (issue 42, item 6): a Bounce or Complaint event, of
 * a report that exists, for one of its current recipients.
 */
const temp = makeTempDir('mail-events');
afterAll(() => temp.remove());
const NOW = new Date('2026-11-23T06:05:00Z');
const SHELLY = "o'neil$HOME|x`id`@example.test";
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, email: { to: ['team@example.test', 'gone@example.test', SHELLY], onFailure: ['owner@example.test'] } };

function sesEvent(eventType: string, detail: Record<string, unknown>, report = 'weekly') {
  return sesMailEventSchema.parse({
    'detail-type': eventType === 'Complaint' ? 'Email Complaint Received' : 'Email Bounced',
    source: 'aws.ses',
    detail: { eventType, mail: { tags: { report: [report], 'ses:configuration-set': ['stack-report-mail'] } }, ...detail },
  });
}
const bounce = (bounceType: 'Permanent' | 'Transient', address: string, report = 'weekly') =>
  sesEvent('Bounce', { bounce: { bounceType, bouncedRecipients: [{ emailAddress: address }] } }, report);

function dependencies(folder: string, sent: OutgoingEmail[] = []): MailEventDependencies & { ledger: LocalLedger } {
  return {
    ledger: new LocalLedger(temp.path(folder)),
    definitions: catalogOf({ weekly: WEEKLY }),
    mail: { send: (m: OutgoingEmail) => Promise.resolve(void sent.push(m)) },
    sender: 'reports@example.test',
    log: silentLog,
    clock: fixedClock(NOW),
    settle: () => Promise.resolve(),
  };
}

describe('bounces and complaints of the reports e-mail', () => {
  it('suppresses a permanently bounced address and tells the owners once, however often it bounces', async () => {
    const sent: OutgoingEmail[] = [];
    const deps = dependencies('bounce', sent);
    expect(await handleMailEvent(bounce('Permanent', 'Gone@Example.test'), deps)).toEqual({ report: 'weekly', suppressed: ['gone@example.test'], told: ['gone@example.test'] });
    expect(await handleMailEvent(bounce('Permanent', 'gone@example.test'), deps)).toEqual({ report: 'weekly', suppressed: [] });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: ['owner@example.test'], subject: 'Weekly: a recipient is no longer e-mailed' });
    expect(sent[0]?.text).toContain('npm run reports -- resubscribe weekly gone@example.test');
    expect(await new SuppressionList(deps.ledger).of('weekly', ['gone@example.test', 'team@example.test'])).toEqual({
      'gone@example.test': { since: NOW.toISOString(), reason: 'bounced', toldAt: NOW.toISOString() },
    });
  });

  it('lets a transient bounce pass and suppresses a complaint', async () => {
    const deps = { ...dependencies('complaint'), mail: undefined, sender: undefined };
    expect((await handleMailEvent(bounce('Transient', 'team@example.test'), deps)).suppressed).toEqual([]);
    const complaint = sesEvent('Complaint', { complaint: { complainedRecipients: [{ emailAddress: 'team@example.test' }] } });
    expect((await handleMailEvent(complaint, deps)).suppressed).toEqual(['team@example.test']);
    expect((await new SuppressionList(deps.ledger).of('weekly', ['team@example.test']))['team@example.test']?.reason).toBe('complained');
  });

  it('quotes the address in the command it suggests, for a POSIX shell', async () => {
    const sent: OutgoingEmail[] = [];
    await handleMailEvent(bounce('Permanent', SHELLY), dependencies('quoted', sent));
    expect(sent[0]?.text).toContain(`npm run reports -- resubscribe weekly 'o'\\''neil$home|x\`id\`@example.test'\n`);
  });
});

describe('a mail event is trusted only as far as it matches what was sent', () => {
  it.each([
    ['an unknown report', bounce('Permanent', 'gone@example.test', 'monthly')],
    ['a path-like tag', bounce('Permanent', 'gone@example.test', 'weekly/../x')],
    ['a __proto__ tag', bounce('Permanent', 'gone@example.test', '__proto__')],
    ['an address that is no recipient', bounce('Permanent', 'stranger@example.test')],
    ['an empty address', bounce('Permanent', '')],
    ['an address with CR LF', bounce('Permanent', 'gone@example.test\r\nBcc: x@example.test')],
    ['a Delivery event carrying a bounce object', sesEvent('Delivery', { bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'gone@example.test' }] } })],
    ['a Complaint event carrying only a bounce object', sesEvent('Complaint', { bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'gone@example.test' }] } })],
  ])('changes nothing for %s and tells nobody', async (_what, event) => {
    const sent: OutgoingEmail[] = [];
    const folder = `untrusted-${Math.random().toString(36).slice(2)}`;
    const deps = dependencies(folder, sent);
    const outcome = await handleMailEvent(event, deps);
    expect([outcome.suppressed, outcome.told]).toEqual([[], undefined]);
    expect(sent).toEqual([]);
    // Nothing at all in the ledger: no `suppress/<tag>` entry for a tag that is no report.
    expect(await readdir(temp.path(folder)).catch(() => [])).toEqual([]);
  });
});
