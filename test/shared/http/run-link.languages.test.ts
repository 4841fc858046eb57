import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { finishedView } from '../../../shared/http/run-link';
import { runJob } from '../../../shared/job/run-job';
import { manifestSchema } from '../../../shared/report/manifest/manifest';
import { twoLanguageReport, useMailedJobs } from '../../support/mailed-jobs';

/**
 * The run page reads the figures' labels from the stored Summary: in the page's language when the
 * run stored its Summary in it (a recipient's own locale, manifest `summary.languages`), else in the
 * report's. The figures are the same in either. Read from a real run's manifest.json.
 */
const REPORT = twoLanguageReport();
const AT = '2026-11-23T06:00:00Z';
const jobs = useMailedJobs('run-link-languages-');

describe("the run page's figures", () => {
  it("carry the labels of the page's language when the run stored it, else the report's", async () => {
    const outcome = await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: AT }, jobs.deps({ [REPORT.name]: REPORT }, fixedClock(new Date(AT))));
    if (outcome.status !== 'succeeded') throw new Error(`the run ${outcome.status}`);
    const manifest = manifestSchema.parse(JSON.parse(await readFile(join(jobs.dir, outcome.manifestKey), 'utf8')));
    const page = (locale: string) => finishedView(manifest, { exportId: 'x', title: REPORT.title, timeZone: 'Europe/Berlin', locale, fresh: false, href: (p) => p });
    const byLabel = (locale: string) => Object.fromEntries(page(locale).figures.map((f) => [f.label, f.value]));
    const german = byLabel('de-DE');
    const english = byLabel('en-GB');
    expect(german['Offene Risiken']).toBeDefined();
    expect(german['Offene Risiken']).toBe(english['Open risks']);
    expect(Object.keys(german)).not.toContain('Open risks');
    // A language the run did not store: the report's words, that page's numbers.
    expect(Object.keys(byLabel('fr-FR'))).toContain('Open risks');
  }, 60_000);
});
