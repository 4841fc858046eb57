// @tier slow
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import type { StoredDefinition } from '../../../../shared/definitions/stored-definition';
import { runJob } from '../../../../shared/job/run-job';
import { listReports } from '../../../../shared/ops/report-list';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { manifestSchema } from '../../../../shared/report/manifest/manifest';
import { csvObjects, readCsv } from '../../../support/read-output';
import { useMailedJobs } from '../../../support/mailed-jobs';
import { pdfPages } from '../../../support/read-pdf';
import { storedReports } from '../../../support/door-settings';

/**
 * A risk named in Japanese, one in Arabic and one in Hebrew, added between two weekly runs: the
 * PDF's "What changed" prints the first two as "?" (Liberation Sans has no Han, kana or Arabic;
 * it has Hebrew), says what "?" means, and the owners, never the readers, are told where and how many.
 */
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, formats: ['csv', 'pdf'], email: { to: ['team@example.test'], onFailure: ['owner@example.test'] } };
const JAPANESE = '田中の供給遅延';
const ARABIC = 'تأخير المورد';
const HEBREW = 'עיכוב ספק';
const jobs = useMailedJobs('pdf-unprinted-');

async function run(at: string) {
  const outcome = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: at }, jobs.deps({ weekly: WEEKLY }, fixedClock(new Date(at))));
  expect(outcome.status).toBe('succeeded');
  const latest = JSON.parse(await readFile(join(jobs.dir, 'weekly', 'latest.json'), 'utf8')) as { manifest: string };
  const manifest = manifestSchema.parse(JSON.parse(await readFile(join(jobs.dir, latest.manifest), 'utf8')));
  return { manifest, folder: join(jobs.dir, latest.manifest, '..') };
}

describe('a run whose data holds text the PDF cannot print', () => {
  it('prints it as "?", lists it in the manifest and tells the owners once, with the count', async () => {
    const first = await run('2026-11-16T06:00:00Z');
    expect(first.manifest.summary.unprintedText).toBeUndefined();
    jobs.sim.advance({ addRisks: [JAPANESE, ARABIC, HEBREW].map((title) => ({ register: 'ENT', title })) });
    const second = await run('2026-11-23T06:00:00Z');

    // Seven Han and kana characters, eleven Arabic letters (the space between the two words prints).
    const lost = [...(JAPANESE + ARABIC).replace(' ', '')].length;
    expect(lost).toBe(18);
    expect(second.manifest.summary.unprintedText).toEqual([
      { where: 'Summary › What changed since 16/11/2026', characters: lost, scripts: ['Arabic', 'Han', 'Hiragana'], sample: '田中の供給遅延تأخ' },
    ]);

    const pdf = (await pdfPages(join(second.folder, 'weekly.pdf'))).join('\n');
    expect(pdf).toMatch(/ENT-\d+ \?{7} +added/);
    expect(pdf).toMatch(/ENT-\d+ \?{5} \?{6} +added/);
    expect(pdf).not.toMatch(/[\u3040-\u30ff\u3400-\u9fff\u0600-\u06ff]/);
    for (const word of HEBREW.split(' ')) expect(pdf).toContain(word);
    expect(pdf).toContain(`"?" stands for a character this PDF's font cannot print (${lost} in all: Arabic, Han, Hiragana); the workbook and the CSV files hold the text in full.`);
    // The CSV keeps every character.
    const titles = csvObjects(await readCsv(join(second.folder, 'risks.csv'))).map((r) => r.title);
    expect(titles).toEqual(expect.arrayContaining([JAPANESE, ARABIC, HEBREW]));

    const told = (await jobs.mailsTo('owner@example.test')).filter((m) => m.subject === 'Weekly: the PDF cannot print some characters');
    expect(told).toHaveLength(1);
    expect(told[0]!.body.text).toContain(`  Summary › What changed since 16/11/2026: ${lost} characters (Arabic, Han, Hiragana), e.g. 田中の供給遅延تأخ\n`);
    expect(told[0]!.body.text).toContain('Readers find these values in the workbook and the CSV files, which hold every character.');
    for (const mail of await jobs.mailsTo('team@example.test')) expect(`${mail.body.text ?? ''}${mail.body.html ?? ''}`).not.toMatch(/cannot print|unprintedText/);
    // The operators' run list counts them.
    const store = storedReports(new LocalDirectoryStorage(join(jobs.dir, 'definitions')));
    await store.put({ definition: WEEKLY as StoredDefinition['definition'], schedule: null });
    const [entry] = await listReports({ store, now: new Date('2026-11-23T07:00:00Z'), ledger: jobs.ledger, storage: new LocalDirectoryStorage(jobs.dir) });
    expect(entry?.lastRun?.result).toContain(`the PDF printed ${lost} characters its fonts lack as "?" (see the manifest)`);

    // A week later the section is named by another date and holds other words of the same scripts: not told again.
    jobs.sim.advance({ addRisks: ['佐藤の遅れ', 'خطر'].map((title) => ({ register: 'ENT', title })) });
    const third = await run('2026-11-30T06:00:00Z');
    expect(third.manifest.summary.unprintedText).toEqual([
      expect.objectContaining({ where: 'Summary › What changed since 23/11/2026', characters: 8, scripts: ['Han', 'Arabic', 'Hiragana'] }),
    ]);
    expect((await jobs.mailsTo('owner@example.test')).filter((m) => m.subject.includes('PDF'))).toHaveLength(1);
    // The week the PDF prints every character again, they hear that once.
    await run('2026-12-07T06:00:00Z');
    const pdfMails = (await jobs.mailsTo('owner@example.test')).filter((m) => m.subject.includes('PDF'));
    expect(pdfMails.map((m) => m.subject)).toEqual(['Weekly: the PDF cannot print some characters', 'Weekly: the PDF prints every character again']);
  });
});
