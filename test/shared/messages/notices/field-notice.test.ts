import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import { silentLog } from '../../../../shared/core/logger';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import { noticeFieldChanges } from '../../../../shared/messages/notices/field-notice';
import { runJob } from '../../../../shared/job/run-job';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import type { Manifest } from '../../../../shared/report/manifest/manifest';
import { useMailedJobs } from '../../../support/mailed-jobs';

/**
 * Served fields no column holds are the owners' business: readers' e-mail never mentions them, and
 * the owners hear once when the set changes, not every week.
 */
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, formats: ['csv'], email: { to: ['team@example.test'], onFailure: ['owner@example.test'] } };
const jobs = useMailedJobs('field-notice-');

describe('fields the planning API sends that no column holds', () => {
  it('reach the owners once across weekly runs, and never the readers', async () => {
    for (const at of ['2026-11-23T06:00:00Z', '2026-11-30T06:00:00Z']) {
      const outcome = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: at }, jobs.deps({ weekly: WEEKLY }, fixedClock(new Date(at))));
      expect(outcome.status).toBe('succeeded');
    }
    const owner = await jobs.mailsTo('owner@example.test');
    expect(owner.map((m) => m.subject)).toEqual(['Weekly: the planning API sends fields the report does not hold']);
    // The tiny tenant's risks carry a `score` no column holds.
    expect(owner[0]?.body.text).toContain('  risks: score\n');
    const readers = await jobs.mailsTo('team@example.test');
    expect(readers).toHaveLength(2);
    for (const mail of readers) expect(`${mail.body.text ?? ''}${mail.body.html ?? ''}`).not.toMatch(/server sent|does not hold|score/);
  });

  it('tells again only when a field appears or goes', async () => {
    const definition = parseReportDefinition(WEEKLY);
    const sent: OutgoingEmail[] = [];
    const deps = { ledger: jobs.ledger, mail: { send: (m: OutgoingEmail) => Promise.resolve(void sent.push(m)) }, sender: 'reports@example.test', log: silentLog };
    const run = (runId: string, paths: string[]) =>
      ({ runId, summary: { unexportedFields: { risks: paths.map((path) => ({ path, records: 1 })) } } }) as unknown as Manifest;
    expect(await noticeFieldChanges(definition, run('r1', ['score']), deps)).toBe('sent');
    expect(await noticeFieldChanges(definition, run('r2', ['score']), deps)).toBe('unchanged');
    expect(await noticeFieldChanges(definition, run('r3', ['score', 'rank']), deps)).toBe('sent');
    expect(await noticeFieldChanges(definition, run('r4', ['rank']), deps)).toBe('sent');
    expect(sent.map((m) => m.text.split('\n').filter((l) => l.startsWith('  ')))).toEqual([['  risks: score'], ['  risks: rank'], ['  risks: score']]);
    expect(sent[2]?.text).toContain('No longer sent:\n  risks: score\n');
  });

  it('tells at the next run when the e-mail could not be sent', async () => {
    const definition = parseReportDefinition({ ...WEEKLY, name: 'unsent' });
    const sent: OutgoingEmail[] = [];
    let down = true;
    const send = (m: OutgoingEmail) => (down ? Promise.reject(new Error('SES throttled')) : Promise.resolve(void sent.push(m)));
    const deps = { ledger: jobs.ledger, mail: { send }, sender: 'reports@example.test', log: silentLog };
    const run = (runId: string) => ({ runId, summary: { unexportedFields: { risks: [{ path: 'score', records: 1 }] } } }) as unknown as Manifest;
    expect(await noticeFieldChanges(definition, run('r1'), deps)).toBe('failed');
    down = false;
    expect(await noticeFieldChanges(definition, run('r2'), deps)).toBe('sent');
    expect(await noticeFieldChanges(definition, run('r3'), deps)).toBe('unchanged');
    expect(sent.map((m) => m.text)).toEqual([expect.stringContaining('  risks: score\n')]);
  });
});
