import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { EmailDeliveryError } from '../../../shared/core/errors';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { manifestSchema } from '../../../shared/report/manifest/manifest';
import { twoLanguageReport, useMailedJobs } from '../../support/mailed-jobs';

/**
 * The language follows the reader on a rerun too (issue 49, item 3): a run whose first delivery fails
 * after it published is retried from its stored manifest, with nothing fetched again; the German
 * reader still gets the German e-mail, with the figures the English reader gets. Read from
 * aws-ses-v2-local's store.
 */
const REPORT = twoLanguageReport();
const AT = '2026-11-23T06:00:00Z';
const jobs = useMailedJobs('rerun-reader-languages-');

/** The headline figures of a text part, by the labels of its language, as numbers. */
function figures(text: string, labels: readonly string[]): number[] {
  return labels.map((label) => {
    const match = new RegExp(`^  ${label}: ([\\d.,]+)`, 'm').exec(text);
    if (!match) throw new Error(`no "${label}" in\n${text}`);
    return Number(match[1]!.replace(/[.,]/g, ''));
  });
}

/** The deps of a job whose mail service refuses every send while `down.now` holds. */
function withFlakyMail(deps: JobContext, down: { now: boolean }): JobContext {
  const { mail } = deps;
  if (!mail) throw new Error('the mailed jobs have a mail transport');
  return {
    ...deps,
    mail: {
      ...mail,
      send: (email) => (down.now ? Promise.reject(new EmailDeliveryError('SES throttled', { retryable: true })) : mail.send(email)),
    },
  };
}

describe('a retried delivery of a published run with readers of two languages', () => {
  it('sends the German reader the German e-mail from the stored run, with the same figures', async () => {
    const down = { now: true };
    const deps = withFlakyMail(jobs.deps({ [REPORT.name]: REPORT }, fixedClock(new Date(AT))), down);
    const first = await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: AT }, deps).catch((error: unknown) => error);
    expect(await jobs.mailsTo('jonas@example.test')).toEqual([]);
    expect(first).not.toMatchObject({ status: 'succeeded', delivery: { emailed: true } });

    down.now = false;
    const asked = jobs.sim.requests.length;
    const retry = await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: AT }, deps);
    expect(retry).toMatchObject({ status: 'succeeded' });
    // From the stored run: the planning API is asked nothing again.
    expect(jobs.sim.requests.length).toBe(asked);
    const [english] = await jobs.mailsTo('anna@example.test');
    const [german] = await jobs.mailsTo('jonas@example.test');
    expect(german?.body.html).toMatch(/<html lang="de-DE">/);
    expect(german!.body.text).toContain('Handlungsbedarf');
    expect(german!.body.text).not.toMatch(/Open risks|Needs attention/);
    const en = figures(english!.body.text!, ['Open risks', 'Open high or critical risks', 'Overdue risks']);
    const de = figures(german!.body.text!, ['Offene Risiken', 'Offene hohe oder kritische Risiken', 'Überfällige Risiken']);
    expect(de).toEqual(en);
    expect(en[0]).toBeGreaterThan(0);
  }, 60_000);

  it('retries from a manifest written before the languages were stored: every reader reads the report language', async () => {
    const down = { now: true };
    const deps = withFlakyMail(jobs.deps({ [REPORT.name]: REPORT }, fixedClock(new Date(AT))), down);
    await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: AT }, deps).catch(() => undefined);
    const [file] = (await readdir(jobs.dir, { recursive: true })).filter((f) => f.endsWith('manifest.json'));
    const path = join(jobs.dir, file!);
    const stored = manifestSchema.parse(JSON.parse(await readFile(path, 'utf8')));
    expect(Object.keys(stored.summary.languages ?? {})).toEqual(['de-DE']);
    const { languages: _dropped, ...older } = stored.summary;
    await writeFile(path, JSON.stringify({ ...stored, summary: older }, null, 2));

    down.now = false;
    expect(await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: AT }, deps)).toMatchObject({ status: 'succeeded' });
    const [english] = await jobs.mailsTo('anna@example.test');
    const [german] = await jobs.mailsTo('jonas@example.test');
    // Words and numbers of one language: the report's, with the figures every reader gets.
    expect(german?.body.html).toMatch(/<html lang="en-GB">/);
    const labels = ['Open risks', 'Open high or critical risks', 'Overdue risks'];
    expect(figures(german!.body.text!, labels)).toEqual(figures(english!.body.text!, labels));
  }, 60_000);
});
