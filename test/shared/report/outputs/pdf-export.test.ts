// @tier slow
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { isClosedRiskStatus } from '../../../../shared/report/summary/vocabulary';
import type { SummaryLine } from '../../../../shared/table/table';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { csvObjects, readCsv } from '../../../support/read-output';
import { labelled, pdfInfo, pdfPages } from '../../../support/read-pdf';

/** The PDF of a demo run read back with poppler: the Summary's and the Trends' words and figures, as the CSVs count them. */
const WEEK_BEFORE = new Date('2026-11-16T06:00:00Z');
const TODAY = new Date('2026-11-23T06:00:00Z');
const definition = parseReportDefinition({
  name: 'rte-weekly',
  title: 'ART weekly',
  timeZone: 'Europe/Berlin',
  datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
});
const reader = readerFormat(definition.locale, definition.timeZone);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the PDF of a run', () => {
  let sim: RunningSimulator;
  const roots: string[] = [];
  let result: ExportResult;
  let pages: string[];
  let folder: string;

  const exportInto = async (root: string, now: Date, runId: string) =>
    runOf(definition).in(root).against(sim).at(now).withRunId(runId).export();

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
    for (const name of ['a', 'b']) roots.push(await mkdtemp(join(tmpdir(), `pdf-export-${name}-`)));
    // Two runs: the second has trends of two runs, so its Trends have charts.
    await exportInto(roots[0]!, WEEK_BEFORE, 'run-1');
    result = await exportInto(roots[0]!, TODAY, 'run-2');
    folder = join(roots[0]!, result.runFolder);
    pages = await pdfPages(join(folder, 'rte-weekly.pdf'));
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  const line = (heading: string, label: string): SummaryLine => {
    const found = result.summary.sections.find((s) => s.heading === heading)?.lines.find((l) => l.label === label);
    if (!found) throw new Error(`no line "${label}" under "${heading}"`);
    return found;
  };
  const pageWith = (text: string | RegExp) => pages.findIndex((p) => (typeof text === 'string' ? p.includes(text) : text.test(p)));

  it('is listed in the manifest as application/pdf with its size and sha256, after the workbook', async () => {
    const entry = result.manifest.files.find((f) => f.format === 'pdf')!;
    expect(entry).toMatchObject({ path: 'rte-weekly.pdf', contentType: 'application/pdf' });
    const bytes = await readFile(join(folder, 'rte-weekly.pdf'));
    expect(entry.bytes).toBe(bytes.length);
    expect(entry.sha256).toBe(sha256(bytes));
    expect(result.manifest.files.map((f) => f.format).slice(0, 3)).toEqual(['xlsx', 'pdf', 'csv']);
    const info = await pdfInfo(join(folder, 'rte-weekly.pdf'));
    expect(info).toMatchObject({ Title: 'ART weekly', 'Page size': expect.stringContaining('(A4)') as string, CreationDate: '2026-11-23T06:00:00Z' });
  });

  it('is tagged for screen readers: headings, tables and each chart with its alternative text', async () => {
    const file = join(folder, 'rte-weekly.pdf');
    const info = await pdfInfo(file);
    expect(info.Tagged).toBe('yes');
    const text = (await readFile(file)).toString('latin1');
    const tags = (name: string) => (text.match(new RegExp(`/S /${name}\\b`, 'g')) ?? []).length;
    expect(tags('Document')).toBe(1);
    expect(tags('H1')).toBe(2); // the title and the Trends
    expect(tags('H2')).toBeGreaterThanOrEqual(result.summary.sections.length);
    expect(tags('Table')).toBeGreaterThan(5);
    expect(tags('TH')).toBeGreaterThan(10);
    expect(tags('TD')).toBeGreaterThan(100);
    const charts = tags('Figure');
    expect(charts).toBeGreaterThan(0);
    // Every Figure has its /Alt, naming the chart it describes.
    const alts = [...text.matchAll(/\/Alt \(((?:[^()\\]|\\.)*)\)/g)].map((m) => m[1]!);
    expect(alts.length).toBe(charts);
    expect(alts.some((a) => a.includes('chart of Risks'))).toBe(true);
  });

  it('heads every page with the title and the run date and numbers it', () => {
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((page, i) => {
      expect(page).toContain('ART weekly – 23/11/2026');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    });
    expect(pages[0]).toMatch(/^\s*ART weekly – 23\/11\/2026\s+ART weekly/);
  });

  it('states the key figures as the CSVs count them', async () => {
    const risks = csvObjects(await readCsv(join(folder, 'risks.csv')));
    const all = line('Risks', 'All risks');
    expect(all.value).toBe(risks.length);
    expect(pages[0]).toMatch(labelled('All risks', reader.integer(risks.length)));
    // Open: every status the Summary does not count as closed (Closed, Mitigated, Accepted, …).
    const open = risks.filter((r) => !isClosedRiskStatus(r.status)).length;
    expect(pages[0]).toMatch(labelled('Open risks', reader.integer(open)));
    const boardItems = csvObjects(await readCsv(join(folder, 'board-items.csv')));
    expect(boardItems.length).toBe(result.manifest.summary.rows['board-items']);
  });

  it('states a percentage as the Summary does, with its change since the last run', () => {
    // Mid-PI the figure is a running one and is named so (summary/pi-figures.ts).
    const label = 'Predictability so far (PI in progress)';
    const predictability = line('PI objectives', label);
    expect(typeof predictability.value).toBe('number');
    const page = pages[pageWith(/^ *Predictability so far \(PI in progress\) +\d/m)]!;
    expect(page).toMatch(labelled(label, reader.percent(predictability.value as number)));
    if (predictability.delta) expect(page).toContain(predictability.delta);
  });

  it('has every Summary section, each whole on one page, in the order of the workbook', () => {
    let last = 0;
    for (const section of result.summary.sections) {
      const first = pageWith(new RegExp(`^ *${section.heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} *$`, 'm'));
      expect(first, section.heading).toBeGreaterThanOrEqual(last);
      const lastLine = section.lines.at(-1);
      if (lastLine && section.role !== 'about') expect(pages[first]).toContain(lastLine.label);
      last = first;
    }
  });

  it('has the Trends after the Summary, with every table of the trends and its runs', () => {
    const trends = pageWith(/^ *Trends *$/m);
    expect(trends).toBeGreaterThan(0);
    const text = pages.slice(trends).join('\n');
    expect(text).toContain(result.trends!.note);
    for (const table of result.trends!.tables) expect(text).toContain(table.title);
    // Each run by its day in the report's locale (en-GB by default), as on every surface.
    expect(text).toMatch(/16\/11\/2026/);
  });

  it('writes the same bytes for the same run', async () => {
    const again = await exportInto(roots[1]!, WEEK_BEFORE, 'run-1');
    const first = await readFile(join(roots[0]!, again.runFolder, 'rte-weekly.pdf'));
    const second = await readFile(join(roots[1]!, again.runFolder, 'rte-weekly.pdf'));
    expect(sha256(second)).toBe(sha256(first));
    expect(again.manifest.files.find((f) => f.format === 'pdf')!.sha256).toBe(sha256(first));
  }, 60_000);
});
