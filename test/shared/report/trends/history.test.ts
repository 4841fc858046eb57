import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { silentLog } from '../../../../shared/core/logger';
import { readTrendHistory } from '../../../../shared/report/trends/history';
import { readWorkbook } from '../../../support/read-output';
import { readZipEntries } from '../../render/zip-entries';
import { renderReportEmail } from '../../../../shared/email/email-content';
import { changesDigest } from '../../../../shared/report/changes/digest';
import { readerFormat } from '../../../../shared/core/format';
import { emailTrends } from '../../../../shared/report/trends/email';
import { startSimulator, type RunningSimulator, type TenantAdvance } from '../../../../simulator/index';

const DEFINITION = parseReportDefinition({
  name: 'weekly',
  timeZone: 'UTC',
  formats: ['xlsx', 'csv'],
  datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
});
const RUNS = 12;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayOfRun = (i: number) => new Date(Date.UTC(2026, 8, 7 + 7 * i, 6, 0));

/** A risk's DD-Mon-YYYY resolution date as a UTC day. */
function parseDay(text: string | undefined): Date | null {
  if (!text) return null;
  const [d, m, y] = text.split('-');
  return new Date(Date.UTC(Number(y), MONTHS.indexOf(m!), Number(d)));
}

/** The figures the trends must show for the tenant as it is now, computed from its records alone. */
function expectedFigures(sim: RunningSimulator, at: Date) {
  const t = sim.tenant;
  const today = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const open = t.registers.flatMap((r) => t.risks(r.id)).filter((r) => r.status.status === 'Open' || r.status.status === 'In Progress');
  const risks = {
    open: open.length,
    highOrCritical: open.filter((r) => r.riskLevel.title === 'High' || r.riskLevel.title === 'Critical').length,
    overdue: open.filter((r) => {
      const due = parseDay(r.resolutionDate);
      return due !== null && due < today;
    }).length,
    withoutOwner: open.filter((r) => !r.responsible?.user && !r.responsible?.id).length,
  };
  const okrThemes = Object.fromEntries(
    t.strategicThemes.map((s) => [s.key ?? s.id, { title: s.title, progress: t.themeProgress(s.id)?.themeProgress ?? null }]),
  );
  const predictability = Object.fromEntries(
    t.boards.map((b) => {
      // SAFe's measure: actual BV of every objective, committed or not, over planned BV of the committed ones.
      const objectives = t.piObjectiveGroups(b.id).flatMap((g) => g.objectives);
      const planned = objectives.filter((o) => o.type === 'Objective-Committed').reduce((s, o) => s + o.bvPlan, 0);
      const actual = objectives.reduce((s, o) => s + o.bvActual, 0);
      return [b.id, { title: b.title, percent: planned > 0 ? (100 * actual) / planned : null }];
    }),
  );
  const features = Object.fromEntries(
    t.boards.map((b) => {
      const statuses = t.statuses(b.id).parentStatuses;
      const isDone = (s: string) => statuses.find((x) => x.title === s || x.id === s)?.category === 'Done';
      const items = t.boardItems(b.id);
      const done = items.filter((i) => isDone(i.status));
      const sum = (list: typeof items) => list.reduce((s, i) => s + (i.estimates ?? 0), 0);
      return [b.id, { title: b.title, features: items.length, done: done.length, estimate: sum(items), estimateDone: sum(done) }];
    }),
  );
  return { risks, okrThemes, predictability, features };
}

/** Week i's changes to the tenant: every kind of figure moves, differently each week. */
function weekChanges(sim: RunningSimulator, i: number): TenantAdvance {
  const t = sim.tenant;
  const open = t.allRisks.filter((r) => r.status.status === 'Open' || r.status.status === 'In Progress');
  const board = t.boards[i % t.boards.length]!;
  const notDone = t.boardItems(board.id).filter((it) => it.status !== 'Done');
  const done = t.statuses(board.id).parentStatuses.find((s) => s.category === 'Done')!;
  const theme = t.strategicThemes[i % t.strategicThemes.length]!;
  const objective = t.piObjectiveGroups(board.id).flatMap((g) => g.objectives).find((o) => o.type === 'Objective-Committed');
  return {
    date: dayOfRun(i),
    risks: [
      ...(open[0] ? [{ id: open[0].id, close: true }] : []),
      ...(open[1] ? [{ id: open[1].id, responsible: null }] : []),
      ...(open[2] && i % 2 === 0 ? [{ id: open[2].id, impact: 'Extreme', probability: 'Almost certain' }] : []),
      ...(open[3] ? [{ id: open[3].id, resolutionDate: `01-Jan-2026` }] : []),
    ],
    addRisks: i % 3 === 0 ? [{ register: t.registers[0]!.key, title: `Risk of week ${i}`, impact: 'Major', probability: 'Likely' }] : [],
    themeProgress: { [theme.key ?? theme.id]: (i * 7) % 100 },
    piObjectives: objective ? [{ boardId: board.id, id: objective.id, bvActual: objective.bvActual + 3 }] : [],
    boardItems: notDone.slice(0, 2).map((it) => ({ boardId: board.id, id: it.id, status: done.title, estimates: 5 + i })),
    addBoardItems: i % 4 === 1 ? [{ boardId: board.id, summary: `Feature of week ${i}` }] : [],
  };
}

describe('the trends reader over 12 kept runs of an evolving tenant', () => {
  let sim: RunningSimulator;
  let root: string;
  const results: ExportResult[] = [];
  const expected: ReturnType<typeof expectedFigures>[] = [];
  const storage = () => new LocalDirectoryStorage(root);

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'trends-'));
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) sim.advance(weekChanges(sim, i));
      expected.push(expectedFigures(sim, dayOfRun(i)));
      results.push(
        await runOf(DEFINITION)
          .withStorage(storage())
          .withLedger(new LocalLedger(join(root, '.ledger')))
          .against(sim)
          .at(dayOfRun(i))
          .withRunId(`r${String(i + 1).padStart(2, '0')}`)
          .withTrigger('scheduled')
          .export(),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('reads every kept run, oldest first, with the figures the tenant had at each run', async () => {
    const history = await readTrendHistory({ storage: storage(), report: 'weekly', runs: RUNS + 1, log: silentLog });
    expect(history.skipped).toEqual([]);
    expect(history.runs.map((r) => r.runId)).toEqual(results.map((r) => r.manifest.runId));
    history.runs.forEach((run, i) => {
      const want = expected[i]!;
      expect(run.risks, `risks of run ${i + 1}`).toEqual(want.risks);
      expect(run.okrThemes, `OKR themes of run ${i + 1}`).toEqual(want.okrThemes);
      for (const [id, p] of Object.entries(want.predictability)) {
        expect(run.predictability[id]?.title).toBe(p.title);
        if (p.percent === null) expect(run.predictability[id]?.percent ?? null).toBeNull();
        else expect(run.predictability[id]?.percent).toBeCloseTo(p.percent, 9);
      }
      expect(run.features, `features of run ${i + 1}`).toEqual(want.features);
      const counts = results[i]!.manifest.changes!.counts;
      expect(run.changes).toEqual(i === 0 ? null : { added: counts.added, removed: counts.removed, changed: counts.changed });
    });
    // The figures move: a test over a tenant that stood still would prove nothing.
    expect(new Set(history.runs.map((r) => r.risks?.open)).size).toBeGreaterThan(3);
    expect(new Set(history.runs.map((r) => JSON.stringify(r.features))).size).toBe(RUNS);
  });

  it('writes a Trends sheet after the Summary: a table per series with the figures of every run, and its charts', async () => {
    const file = join(root, results[RUNS - 1]!.runFolder, 'weekly.xlsx');
    const workbook = await readWorkbook(file);
    expect(workbook.worksheets.map((w) => w.name).slice(0, 4)).toEqual(['Summary', 'Needs attention', 'Trends', 'Changes']);
    const sheet = workbook.getWorksheet('Trends')!;
    expect(sheet.getCell('A2').text).toBe('Trends over the last 12 runs.');
    const column = (n: number) => Array.from({ length: sheet.rowCount }, (_, i) => sheet.getRow(i + 1).getCell(n).value);
    const titleRow = column(1).indexOf('Risks') + 1;
    // The figures by the names the Summary and the e-mail give them (glossary.ts).
    expect(sheet.getRow(titleRow + 1).values).toEqual([
      undefined, 'Run', 'Open risks', 'Open high or critical risks', 'Overdue risks', 'Open risks without an owner',
    ]);
    // The run column holds dates (the report's zone is UTC), shown as the report's en-GB writes them.
    for (let i = 0; i < RUNS; i++) {
      const r = expected[i]!.risks;
      expect(sheet.getRow(titleRow + 2 + i).values, `run ${i + 1}`).toEqual([
        undefined, dayOfRun(i), r.open, r.highOrCritical, r.overdue, r.withoutOwner,
      ]);
      expect(sheet.getRow(titleRow + 2 + i).getCell(1).numFmt).toBe('dd/mm/yyyy');
    }
    const board = sim.tenant.boards[0]!;
    const burnUp = column(1).indexOf(`Feature burn-up: ${board.title}`) + 1;
    const last = expected[RUNS - 1]!.features[board.id]!;
    expect(sheet.getRow(burnUp + 1 + RUNS).values).toEqual([
      undefined, dayOfRun(RUNS - 1), last.features, last.done, last.estimate, last.estimateDone,
      Math.round((last.done / last.features) * 1000) / 1000, Math.round((last.estimateDone / last.estimate) * 1000) / 1000,
    ]);
    // Risks, OKR progress, predictability, then a burn-up per board.
    const zip = await readZipEntries(file);
    const charts = [...zip.keys()].filter((k) => /^xl\/charts\/chart\d+\.xml$/.test(k));
    expect(charts).toHaveLength(3 + sim.tenant.boards.length);
    expect(zip.get('xl/charts/chart1.xml')).toContain(`<c:f>'Trends'!$B$${titleRow + 2}:$B$${titleRow + 1 + RUNS}</c:f>`);
    // Its categories are those dates, labelled in their cells' format on a text axis (a label per run).
    expect(zip.get('xl/charts/chart1.xml')).toContain(`<c:cat><c:numRef><c:f>'Trends'!$A$${titleRow + 2}:$A$${titleRow + 1 + RUNS}</c:f><c:numCache><c:formatCode>dd/mm/yyyy</c:formatCode>`);
    expect(zip.get('xl/charts/chart1.xml')).toContain('<c:numFmt formatCode="dd/mm/yyyy" sourceLinked="1"/>');
  });

  it('says on the first run that trends start with the next one, and shows what two or three runs have', async () => {
    const first = (await readWorkbook(join(root, results[0]!.runFolder, 'weekly.xlsx'))).getWorksheet('Trends')!;
    expect(first.getCell('A2').text).toBe('Trends start with the next run: this is the first run of this report with figures to compare.');
    expect(results[0]!.trends?.tables.find((t) => t.id === 'risks')?.rows).toHaveLength(1);
    const third = (await readWorkbook(join(root, results[2]!.runFolder, 'weekly.xlsx'))).getWorksheet('Trends')!;
    expect(third.getCell('A2').text).toBe('Trends over the 3 runs so far; they grow with every run.');
    expect(results[2]!.trends?.tables.find((t) => t.id === 'risks')?.rows.map((r) => r.values[0])).toEqual(
      expected.slice(0, 3).map((e) => e.risks.open),
    );
    const firstZip = await readZipEntries(join(root, results[0]!.runFolder, 'weekly.xlsx'));
    expect([...firstZip.keys()].some((k) => k.startsWith('xl/charts/'))).toBe(false);
  });

  it('draws the last 8 runs of each headline series in the e-mail as table bars with their numbers in text, under 102 KB', () => {
    const result = results[RUNS - 1]!;
    const email = renderReportEmail({
      reportName: 'weekly', generatedAt: dayOfRun(RUNS - 1), format: readerFormat('en-GB', 'UTC'), summary: result.summary,
      links: result.manifest.files.map((f) => ({ label: f.path, url: `https://links.example.com/${f.path}`, bytes: f.bytes, kind: f.format })),
      changes: changesDigest(result.changes, readerFormat('en-GB', 'UTC')), trends: emailTrends(result.trends!), runId: result.manifest.runId,
    });
    expect(Buffer.byteLength(email.html)).toBeLessThan(102 * 1024);
    expect(email.html).not.toMatch(/<img|<svg|url\(/i);
    const opens = expected.slice(-8).map((e) => e.risks.open);
    // The report's locale (en-GB by default) writes the days, the range and the axis.
    const days = Array.from({ length: 8 }, (_, i) => gbDay(dayOfRun(RUNS - 8 + i)));
    // The chart's number row and date row: text a screen reader reads (the bar row is aria-hidden).
    const chart = /Open risks <span[^>]*>\(([^)]*)\)<\/span><\/p><table[^>]*><tr aria-hidden="true">(.*?)<\/tr><tr>(.*?)<\/tr><tr>(.*?)<\/tr><\/table>/.exec(email.html)!;
    // As Intl writes a range (thin spaces around the dash).
    expect(chart[1]).toBe(`${days[0]}\u2009–\u2009${days[7]}`);
    const cells = (row: string) => [...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(cells(chart[3]!)).toEqual(opens.map(String));
    expect(cells(chart[4]!)).toEqual(days.map((d) => d.slice(0, 5)));
    // Taller bars for bigger numbers.
    const heights = [...chart[2]!.matchAll(/<td height="(\d+)" bgcolor/g)].map((m) => Number(m[1]));
    const max = Math.max(...opens);
    expect(heights).toEqual(opens.filter((o) => o > 0).map((o) => Math.max(2, Math.round((o / max) * 40))));
    expect(email.text).toContain(`Open risks: ${days.map((d, i) => `${d} ${opens[i]}`).join(', ')}`);
    expect(email.html).toContain('Predictability');
  });

  it('stops at the configured number of runs, keeping the newest', async () => {
    const history = await readTrendHistory({ storage: storage(), report: 'weekly', runs: 5, log: silentLog });
    expect(history.runs.map((r) => r.runId)).toEqual(['r09', 'r10', 'r11', 'r12']);
  });

  it('skips a damaged run in the middle and names it, reading the runs before it from their folders', async () => {
    const damaged = results[5]!;
    await writeFile(join(root, damaged.manifestKey), '{"formatVersion": 1, "report": "weekly", "runId": "r06", "tru');
    const missing = results[8]!;
    await rm(join(root, missing.manifestKey));
    const history = await readTrendHistory({ storage: storage(), report: 'weekly', runs: RUNS + 1, log: silentLog });
    expect(history.runs.map((r) => r.runId)).toEqual(['r01', 'r02', 'r03', 'r04', 'r05', 'r07', 'r08', 'r10', 'r11', 'r12']);
    expect(history.skipped).toEqual([
      { run: `${missing.runFolder.slice('weekly/'.length)}`, reason: 'its manifest is missing' },
      { run: `${damaged.runFolder.slice('weekly/'.length)}`, reason: 'its manifest is not valid JSON' },
    ]);
    expect(history.runs[4]!.risks).toEqual(expected[4]!.risks);
  });
});

/** A calendar day as en-GB writes it: `23/11/2026`. */
function gbDay(day: Date): string {
  return day.toISOString().slice(0, 10).split('-').reverse().join('/');
}
