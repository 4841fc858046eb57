import { systemClock } from '../../../../shared/core/clock';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanningApiError, ReportPlanError } from '../../../../shared/core/errors';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import type { ProgressEvent } from '../../../../shared/report/dataset/dataset';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { tableTitle } from '../../../../shared/report/names';
import { csvObjects, readCsv, readWorkbook, sheetHeader, sheetKeys, sheetRows } from '../../../support/read-output';

const ALL_DATASETS: ReportDefinitionInput = {
  name: 'acme-weekly',
  timeZone: 'Europe/Berlin',
  datasets: { risks: {}, okrs: {}, piObjectives: { additionalColumns: true }, boardItems: {} },
  links: { extBBrowseUrl: 'https://tracker.example.com/browse/{key}' },
};

describe('runExport against the simulator (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  let result: ExportResult;
  let folder: string;
  // Read-only in every test, so the workbook is parsed once.
  let parsed: Promise<ExcelJS.Workbook> | undefined;
  const sharedWorkbook = (): Promise<ExcelJS.Workbook> => (parsed ??= readWorkbook(join(folder, 'acme-weekly.xlsx')));
  /** A table's sheet (by its title) with cells addressed by the CSV's column names. */
  const sheetOf = async (table: string) => {
    const sheet = (await sharedWorkbook()).getWorksheet(tableTitle(table))!;
    const keys = sheetKeys(table, (await readCsv(join(folder, `${table}.csv`))).header);
    return { sheet, rows: sheetRows(sheet, keys) };
  };

  /** The progress events of the first run (the one every test reads). */
  const firstRunEvents: ProgressEvent[] = [];
  const run = (input: ReportDefinitionInput, options: { email?: string; runId?: string; storageRoot?: string; events?: ProgressEvent[] } = {}) => {
    const events = options.events;
    const built = runOf(parseReportDefinition(input))
      .in(options.storageRoot ?? root)
      .withCredentials({ getCredentials: () => Promise.resolve(sim.credentials(options.email)) })
      .at('2026-11-23T06:00:00Z')
      .withContext({ onProgress: events && ((event: ProgressEvent) => events.push(event)) });
    return (options.runId === undefined ? built : built.withRunId(options.runId)).export();
  };

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo' });
    root = await mkdtemp(join(tmpdir(), 'run-export-'));
    result = await run(ALL_DATASETS, { runId: 'run-1', events: firstRunEvents });
    folder = join(root, result.runFolder);
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('writes the documented layout with the manifest last and latest.json pointing at it', async () => {
    expect(result.runFolder).toBe('acme-weekly/dt=2026-11-23/run=run-1');
    const files = (await readdir(folder)).sort();
    expect(files).toEqual(
      [
        'acme-weekly.xlsx', 'acme-weekly.pdf', 'board-items.csv', 'changes.csv', 'manifest.json', 'okrs.csv', 'pi-objective-items.csv', 'pi-objectives.csv',
        'risk-custom-fields.csv', 'risks.csv', 'snapshots', 'strategic-themes.csv',
      ].sort(),
    );
    const latest = JSON.parse(await readFile(join(root, 'acme-weekly', 'latest.json'), 'utf8'));
    expect(latest).toMatchObject({ report: 'acme-weekly', runId: 'run-1', manifest: `${result.runFolder}/manifest.json` });
  });

  it('reports progress as the rows go out: every 2,000 rows, then each table done with its count', () => {
    const rows = result.manifest.summary.rows;
    expect(firstRunEvents.filter((e) => e.type === 'table-done')).toEqual(Object.entries(rows).map(([table, n]) => ({ type: 'table-done', table, rows: n })));
    for (const [table, total] of Object.entries(rows)) {
      const counts = firstRunEvents.flatMap((e) => (e.type === 'rows' && e.table === table ? [e.rows] : []));
      expect(counts, table).toEqual(Array.from({ length: Math.floor(total / 2_000) }, (_, i) => (i + 1) * 2_000));
    }
    // The demo's board items (about 2,100 rows) are the one table past the first step.
    expect(firstRunEvents.filter((e) => e.type === 'rows').map((e) => e.type === 'rows' && e.table)).toEqual(['board-items']);
  });

  it('records bytes and sha256 of every file exactly as written, and never the API key', async () => {
    const manifestText = await readFile(join(folder, 'manifest.json'), 'utf8');
    for (const file of result.manifest.files) {
      const bytes = await readFile(join(folder, file.path));
      expect(file.bytes).toBe(bytes.length);
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(result.manifest.source.email).toBe(sim.credentials().email);
    expect(manifestText).not.toContain(sim.credentials().apiKey);
  });

  it('puts the Summary sheet first and one sheet per table with the same rows as its CSV', async () => {
    const workbook = await sharedWorkbook();
    expect(workbook.worksheets.map((s) => s.name)).toEqual([
      'Summary', 'Needs attention', 'Trends', 'Changes', 'Risks', 'Risk custom fields', 'Strategic themes', 'OKRs', 'PI objectives', 'PI objective items', 'Board items',
    ]);
    for (const table of ['risks', 'risk-custom-fields', 'strategic-themes', 'okrs', 'pi-objectives', 'pi-objective-items', 'board-items']) {
      const sheet = workbook.getWorksheet(tableTitle(table))!;
      const csv = await readCsv(join(folder, `${table}.csv`));
      // People read labels, programs read the CSV's snake_case names: one per column, in the same order.
      expect(sheetHeader(sheet)).toHaveLength(csv.header.length);
      expect(sheetHeader(sheet)).not.toEqual(csv.header);
      expect(sheet.rowCount - 1).toBe(csv.rows.length);
      expect(result.manifest.files[0]!.rows[table]).toBe(csv.rows.length);
    }
  });

  it('summarises the run on the Summary sheet: open risks, scope and row counts', async () => {
    const summary = (await sharedWorkbook()).getWorksheet('Summary')!;
    const lines = new Map<string, unknown>();
    const rowCounts = new Map<string, unknown>();
    let inRows = false;
    summary.eachRow((row) => {
      lines.set(row.getCell(1).text, row.getCell(3).value);
      // The Rows section names each table by its title, as its sheet does.
      if (inRows) rowCounts.set(row.getCell(1).text, row.getCell(3).value);
      inRows ||= row.getCell(1).text === 'Rows';
    });
    for (const [table, count] of Object.entries(result.manifest.files[0]!.rows)) expect(rowCounts.get(tableTitle(table)), table).toBe(count);
    expect(String(lines.get('Risk registers'))).toContain(sim.tenant.registers[0]!.key);
    expect(lines.get('PI objectives: completion type')).toBe('board default');
    const open = sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status));
    expect(lines.get('Open risks')).toBe(open.length);
    expect(lines.get('All risks')).toBe(sim.tenant.allRisks.length);
  });

  it('exports every risk with its custom fields, typed dates and a filled risk-level cell', async () => {
    const tenant = sim.tenant;
    const expected = tenant.registers.flatMap((r) => tenant.risks(r.id));
    const csv = csvObjects(await readCsv(join(folder, 'risks.csv')));
    expect(csv.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    const header = (await readCsv(join(folder, 'risks.csv'))).header;
    expect(header).toEqual(expect.arrayContaining(['cf_category', 'cf_risk_owner', 'cf_cost_impact_k', 'cf_review_date', 'cf_affected_areas', 'cf_notes']));

    const withOwner = expected.find((r) => r.customFields?.some((f) => f.type === 'userpicker'))!;
    const owner = withOwner.customFields!.find((f) => f.type === 'userpicker')!.value as { fullName: string };
    const row = csv.find((r) => r.id === withOwner.id)!;
    expect(row.cf_risk_owner).toBe(owner.fullName);
    expect(Object.values(row).some((v) => v.includes('[object Object]'))).toBe(false);

    const sheetRow = (await sheetOf('risks')).rows.find((r) => r.cell('id').value === withOwner.id)!;
    const raised = sheetRow.cell('raised_date');
    expect(raised.value).toBeInstanceOf(Date);
    expect(row.raised_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((raised.value as Date).toISOString().slice(0, 10)).toBe(row.raised_date);
    const level = sheetRow.cell('risk_level');
    expect(level.value).toBe(withOwner.riskLevel?.title);
    const fill = level.fill as { fgColor?: { argb?: string } };
    expect(fill.fgColor?.argb?.slice(-6).toLowerCase()).toBe(withOwner.riskLevel?.color?.replace('#', '').toLowerCase());
  });

  it('keeps injection strings as text: neutralised in CSV, a plain string cell in the workbook', async () => {
    const csv = csvObjects(await readCsv(join(folder, 'board-items.csv')));
    const injected = csv.find((r) => r.summary?.includes("HYPERLINK"))!;
    expect(injected.summary).toBe(`'=HYPERLINK("http://x","y")`);
    const cell = (await sheetOf('board-items')).rows.find((r) => r.cell('id').value === injected.id)!.cell('summary');
    expect(cell.value).toBe('=HYPERLINK("http://x","y")');
    expect(cell.formula).toBeUndefined();
  });

  it('cuts text over the Excel cell limit in the workbook with a marker but keeps it whole in the CSV', async () => {
    const long = sim.tenant.allRisks.find((r) => (r.riskDesc?.length ?? 0) > 32_767)!;
    const csvRow = csvObjects(await readCsv(join(folder, 'risks.csv'))).find((r) => r.id === long.id)!;
    expect(csvRow.description).toBe(long.riskDesc);
    const text = (await sheetOf('risks')).rows.find((r) => r.cell('id').value === long.id)!.cell('description').text;
    expect(text.length).toBeLessThanOrEqual(32_767);
    expect(text).toMatch(/truncated/);
  });

  it('groups the OKR hierarchy with outline levels and carries each row\'s strategic theme key', async () => {
    const { sheet, rows } = await sheetOf('okrs');
    for (const r of rows) expect(r.row.outlineLevel ?? 0).toBe(Number(r.cell('level').value) - 1);
    // The outline bar shows buttons 1-3 only when the sheet declares its deepest level.
    expect(sheet.properties.outlineLevelRow).toBe(2);
    const tenant = sim.tenant;
    const expectedCount = tenant.strategicThemes.reduce((n, t) => {
      const groups = tenant.objectiveGroupsOf(t.id);
      return n + groups.length + groups.reduce((m, g) => {
        const objectives = tenant.objectivesOf(g.id);
        return m + objectives.length + objectives.reduce((k, o) => k + tenant.keyResultsOf(o.id).length, 0);
      }, 0);
    }, 0);
    expect(rows.length).toBe(expectedCount);
    const kr = rows.find((r) => r.cell('level').value === 3)!;
    expect(tenant.strategicTheme(kr.cell('strategic_theme_key').text)).toBeDefined();
    const pct = rows.find((r) => typeof r.cell('completion').value === 'number')!.cell('completion');
    expect(pct.numFmt).toContain('%');
  });

  it('links PI objective items of both tracker families and leaves null completion empty', async () => {
    const csv = csvObjects(await readCsv(join(folder, 'pi-objective-items.csv')));
    const extA = csv.find((r) => r.tracker_family === 'extA')!;
    const extB = csv.find((r) => r.tracker_family === 'extB')!;
    expect(extA.tracker_link).toMatch(/^https?:\/\//);
    expect(extB.tracker_link).toBe(`https://tracker.example.com/browse/${extB.tracker_key}`);
    expect(extA.teams === undefined).toBe(false);

    const items = (await sheetOf('pi-objective-items')).rows;
    const link = items.find((r) => r.cell('tracker_family').value === 'extB')!.cell('tracker_link');
    expect((link.value as { hyperlink: string }).hyperlink).toBe(extB.tracker_link);
    const sub = items.find((r) => r.cell('kind').value === 'sub-item')!;
    expect(sub.row.outlineLevel).toBe(1);

    const tenant = sim.tenant;
    const served = tenant.boards.flatMap((b) => tenant.piObjectiveGroups(b.id, undefined, true).flatMap((g) => g.objectives ?? []));
    const objectives = csvObjects(await readCsv(join(folder, 'pi-objectives.csv')));
    expect(objectives.length).toBe(served.length);
    for (const o of served) {
      const row = objectives.find((r) => r.id === o.id)!;
      expect(row.completion).toBe(o.completion === null || o.completion === undefined ? '' : String(o.completion));
    }
  });

  it('exports every feature and story with statuses resolved to titles', async () => {
    const tenant = sim.tenant;
    const csv = csvObjects(await readCsv(join(folder, 'board-items.csv')));
    const items = tenant.boards.flatMap((b) => tenant.boardItems(b.id));
    const stories = items.reduce((n, i) => n + (i.stories?.length ?? 0), 0);
    expect(csv.filter((r) => r.kind === 'feature').length).toBe(items.length);
    expect(csv.filter((r) => r.kind === 'story').length).toBe(stories);
    const titles = new Set(tenant.boards.flatMap((b) => {
      const s = tenant.statuses(b.id);
      return [...(s.parentStatuses ?? []), ...(s.childrenStatuses ?? [])].map((x) => x.title);
    }));
    for (const row of csv) expect(titles.has(row.status ?? "")).toBe(true);
  });

  it('exports only what a restricted user can see', async () => {
    const bob = sim.users.find((u) => u.role === 'release-train-engineer')!;
    const view = sim.tenant.visibleTo(bob.email);
    const own = await mkdtemp(join(tmpdir(), 'run-export-bob-'));
    try {
      const r = await run({ name: 'bob', datasets: { boardItems: {}, risks: {} }, formats: ['csv'] }, { email: bob.email, storageRoot: own });
      const rows = csvObjects(await readCsv(join(own, r.runFolder, 'board-items.csv')));
      expect(new Set(rows.map((x) => x.board_id))).toEqual(new Set(view.boards.map((b) => b.id)));
      const risks = csvObjects(await readCsv(join(own, r.runFolder, 'risks.csv')));
      expect(new Set(risks.map((x) => x.register_key))).toEqual(new Set(view.registers.map((x) => x.key)));
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('does not export a completed run id twice', async () => {
    const again = await run(ALL_DATASETS, { runId: 'run-1' });
    expect(again.written).toBe(false);
    expect(again.manifest).toEqual(result.manifest);
  });
});

describe('runExport failures', () => {
  let sim: RunningSimulator;
  let root: string;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'run-export-fail-'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });
  const run = (input: ReportDefinitionInput, runId: string) =>
    runOf(parseReportDefinition(input)).in(root).against(sim).at(systemClock).withRunId(runId).export();

  it('names an unknown board selector and leaves nothing behind', async () => {
    await expect(run({ name: 'bad', datasets: { boardItems: { boards: ['nope'] } } }, 'r1')).rejects.toThrow(ReportPlanError);
    await expect(run({ name: 'bad', datasets: { boardItems: { boards: ['nope'] } } }, 'r1')).rejects.toThrow(/datasets\.boardItems\.boards\[0\]: "nope" is not a board this key can see/);
    await expect(readdir(join(root, 'bad'))).rejects.toThrow();
  });

  it('removes a run that fails half-way and keeps latest.json on the previous good run', async () => {
    const definition = { name: 'half', datasets: { risks: {}, boardItems: {} } };
    const good = await run(definition, 'good');
    // A 400 is not retried: the board-items dataset fails after risks.csv was stored.
    sim.injectFault({ status: 400, times: 100, match: (r) => r.path.endsWith('/items') });
    await expect(run(definition, 'broken')).rejects.toThrow(PlanningApiError);
    const dates = await readdir(join(root, 'half'));
    const runs = (await Promise.all(dates.filter((d) => d.startsWith('dt=')).map((d) => readdir(join(root, 'half', d))))).flat();
    expect(runs).toEqual(['run=good']);
    const latest = JSON.parse(await readFile(join(root, 'half', 'latest.json'), 'utf8'));
    expect(latest.manifest).toBe(good.manifestKey);
  });
});
