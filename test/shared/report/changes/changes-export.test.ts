import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../../shared/report/definition/definition';
import { snapshotTitle } from '../../../../shared/report/changes/snapshot';
import { changesDigest } from '../../../../shared/report/changes/digest';
import { readerFormat } from '../../../../shared/core/format';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { neutraliseFormula } from '../../../../shared/render/cell-text';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { StorageError } from '../../../../shared/core/errors';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { startSimulator, type RiskRecord, type RunningSimulator } from '../../../../simulator/index';
import { csvObjects, readCsv, readWorkbook } from '../../../support/read-output';
import { KIND_COLORS } from '../../../../shared/report/changes/model';

/** CSV alone: the tests read changes.csv; the first one reads the workbook's Changes sheet too (EVERY_FORMAT). */
const BASE: ReportDefinitionInput = {
  name: 'weekly',
  timeZone: 'UTC',
  datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
  formats: ['csv'],
};
/** The default formats (workbook, PDF, CSV): the changes written into each, as a report without `formats` has them. */
const EVERY_FORMAT: ReportDefinitionInput = { ...BASE, formats: undefined };

type Change = { table: string; kind: string; key: string; title: string; change: string; from: string; to: string; where?: string };
/** A change without where its row belongs (checked on its own below). */
const bare = (list: Change[]): Change[] => list.map(({ where: _where, ...c }) => c);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** DD-Mon-YYYY as the exporter writes it in CSV: YYYY-MM-DD. */
function isoDay(text: string | undefined): string {
  if (!text) return '';
  const [d, m, y] = text.split('-');
  return `${y}-${String(MONTHS.indexOf(m!) + 1).padStart(2, '0')}-${d!.padStart(2, '0')}`;
}
// One decimal, as every reader-facing percentage (the test's changes all differ by more than 0.1 point).
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '' : `${n.toFixed(1)} %`);
const str = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** The tracked fields of a risk as the Changes sheet shows them. */
function riskFields(r: RiskRecord): Record<string, string> {
  return {
    Status: r.status.status,
    'Risk level': r.riskLevel.title,
    Impact: r.impact,
    Probability: r.probability,
    Owner: r.responsible?.user ?? '',
    'Resolution date': isoDay(r.resolutionDate),
  };
}

function fieldChanges(table: string, key: string, title: string, before: Record<string, string>, after: Record<string, string>): Change[] {
  return Object.keys(before)
    .filter((k) => before[k] !== after[k])
    .map((k) => ({ table, kind: 'changed', key, title, change: k, from: before[k]!, to: after[k]! }));
}

const sortChanges = (list: Change[]) =>
  [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('changes since the last run (two exports into one root)', () => {
  let sim: RunningSimulator;
  let root: string;
  let storage = (): LocalDirectoryStorage => new LocalDirectoryStorage(root);

  const run = (input: ReportDefinitionInput, at: string, runId: string, trigger: 'scheduled' | 'on-demand' = 'scheduled') =>
    runOf(parseReportDefinition(input))
      .withStorage(storage())
      .withLedger(new LocalLedger(join(root, '.ledger')))
      .against(sim)
      .at(at)
      .withRunId(runId)
      .withTrigger(trigger)
      .export();

  const changesCsv = async (result: ExportResult): Promise<Change[]> =>
    csvObjects(await readCsv(join(root, result.runFolder, 'changes.csv'))).map((r) => ({
      table: r.table!, kind: r.kind!, key: r.key!, title: r.title!, change: r.change!, from: r.from!, to: r.to!,
      // Scope and note rows belong nowhere in particular: no `where`.
      ...(r.context ? { where: r.context } : {}),
    }));
  /** The Changes sheet: its place among the sheets, its two intro lines, and its change rows with fills and links. */
  const changesSheet = async (result: ExportResult) => {
    const workbook = await readWorkbook(join(root, result.runFolder, 'weekly.xlsx'));
    const names = workbook.worksheets.map((w) => w.name);
    const sheet = workbook.getWorksheet('Changes')!;
    const header = (sheet.getRow(4).values as unknown[]).slice(1);
    const text = (r: number, c: number) => sheet.getRow(r).getCell(c).text;
    /** Before and After: a date field's values are date cells, read back as the CSV writes them (their formats kept in `dated`). */
    const dated: string[] = [];
    const value = (r: number, c: number) => {
      const cell = sheet.getRow(r).getCell(c);
      if (!(cell.value instanceof Date)) return cell.text;
      dated.push(cell.numFmt);
      return cell.value.toISOString().slice(0, 10);
    };
    const rows: (Change & { fill: string | undefined; link: string | undefined })[] = [];
    for (let r = 5; r <= sheet.rowCount; r++) {
      const keyCell = sheet.getRow(r).getCell(3);
      const fill = sheet.getRow(r).getCell(2).fill as { fgColor?: { argb?: string } } | undefined;
      rows.push({
        table: text(r, 1), kind: text(r, 2), key: keyCell.text, title: text(r, 4), ...(text(r, 5) ? { where: text(r, 5) } : {}), change: text(r, 6), from: value(r, 7), to: value(r, 8),
        fill: fill?.fgColor?.argb, link: (keyCell.value as { hyperlink?: string } | null)?.hyperlink,
      });
    }
    return { names, header, intro: [text(1, 1), text(2, 1)], rows, dated };
  };
  /** What the CSV holds for a title typed as `text` (formulas neutralised, docs/formats.md). */
  const asCsv = (list: Change[]) => list.map((c) => ({ ...c, title: c.title && neutraliseFormula(c.title) }));

  beforeEach(async () => {
    // Team and sprint changes are compared as lists: the docs vocabulary sends teamsAndSprints as text, kept as is (docs/planning-api.md).
    sim = await startSimulator({ tenant: 'tiny', vocabulary: 'contract' });
    root = await mkdtemp(join(tmpdir(), 'changes-'));
  });
  afterEach(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('says why on a first run, and lists every change, and nothing else, on the next', async () => {
    const first = await run(EVERY_FORMAT, '2026-11-16T06:00:00Z', 'r1');
    expect(first.changes.baseline).toBeNull();
    const firstSheet = await changesSheet(first);
    expect(firstSheet.intro).toEqual(['Changes', 'This is the first run of this report, so there is nothing to compare with yet.']);
    expect(firstSheet.rows).toEqual([expect.objectContaining({ table: 'All tables', kind: 'note', title: 'This is the first run of this report, so there is nothing to compare with yet.' })]);
    expect(await changesCsv(first)).toEqual([
      expect.objectContaining({ table: 'All tables', kind: 'note', title: 'This is the first run of this report, so there is nothing to compare with yet.' }),
    ]);
    const snapshots = first.manifest.changes!.snapshots;
    expect(snapshots.map((s) => s.table)).toEqual(['risks', 'strategic-themes', 'okrs', 'pi-objectives', 'pi-objective-items', 'board-items']);
    for (const s of snapshots) {
      const bytes = await readFile(join(root, first.runFolder, s.path));
      expect(bytes.length).toBe(s.bytes);
      expect(s.rows).toBe(first.manifest.summary.rows[s.table]);
    }

    // ---- what happens in the tenant between the two runs
    const t = sim.tenant;
    const risks = t.allRisks;
    const toClose = risks.find((r) => r.status.status === 'Open' || r.status.status === 'In Progress')!;
    const toReopen = risks.find((r) => r.status.status === 'Closed' && r !== toClose)!;
    const others = risks.filter((r) => r !== toClose && r !== toReopen);
    const toRelevel = others[0]!;
    const toReassign = others[1]!;
    const toRemove = others[2]!;
    const matrix = t.registerMatrix(toRelevel.riskRegister.id)!;
    const newImpact = matrix.impacts.find((i) => i !== toRelevel.impact)!;
    const before = new Map([toClose, toReopen, toRelevel, toReassign].map((r) => [r.id, riskFields(r)]));

    const theme = t.strategicThemes[0]!;
    const objective = t.objectivesOf(t.objectiveGroupsOf(theme.id)[0]!.id)[0]!;
    const objectiveBefore = { Progress: pct(objective.completionPct), Status: objective.status.status, 'Actual BV': str(objective.bvActual) };
    const progressBefore = t.themeProgress(theme.id)!.themeProgress;

    const piBoard = first.manifest.selectors.resolved as { piObjectives: { boards: { id: string }[] } };
    const piBoardId = piBoard.piObjectives.boards[0]!.id;
    const piObjective = t.piObjectiveGroups(piBoardId)[0]!.objectives[0]!;
    const piStatus = piObjective.status.title === 'Achieved' ? 'Missed' : 'Achieved';

    const board = t.boards.find((b) => t.teams(b.id).length > 1 && b.itemCount >= 3)!;
    const [f0, f1, f2] = t.boardItems(board.id, 0, 3) as [ReturnType<typeof t.boardItem> & object, ReturnType<typeof t.boardItem> & object, ReturnType<typeof t.boardItem> & object];
    const done = t.statuses(board.id).parentStatuses.find((s) => s.title === 'Done')!;
    const f1Teams = [...new Set((f1.teamsAndSprints ?? []).map((p) => p.team))].join('; ');
    const f1Sprints = [...new Set((f1.teamsAndSprints ?? []).map((p) => p.sprint))].join('; ');
    const otherTeam = t.teams(board.id).find((team) => team.title !== f1Teams)!.title;
    const otherSprint = t.sprints(board.id).find((s) => s.title !== f1Sprints)!.title;

    sim.advance({
      date: new Date('2026-11-20T00:00:00Z'),
      risks: [
        { id: toClose.id, close: true },
        { id: toReopen.id, reopen: true },
        { id: toRelevel.id, impact: newImpact },
        { id: toReassign.id, responsible: 'Zoe Example' },
      ],
      addRisks: [{ register: t.registers[1]!.key, title: 'Vendor insolvency', status: 'Open' }],
      removeRisks: [toRemove.id],
      okrs: [{ keyOrId: objective.key, completionPct: 77.5, status: 'At Risk', bvActual: 9 }],
      themeProgress: { [theme.key]: progressBefore + 10 },
      piObjectives: [{ boardId: piBoardId, id: piObjective.id, completion: 88, bvPlan: piObjective.bvPlan + 5, status: { title: piStatus, category: 'Done' } }],
      // The status by id: the exporter must show its title.
      boardItems: [
        { boardId: board.id, id: f0.id, status: done.id },
        { boardId: board.id, id: f1.id, team: otherTeam, sprint: otherSprint, estimates: 21 },
      ],
      addBoardItems: [{ boardId: board.id, summary: 'Checkout redesign' }],
      removeBoardItems: [{ boardId: board.id, id: f2.id }],
    });

    const second = await run(EVERY_FORMAT, '2026-11-23T06:00:00Z', 'r2');
    expect(second.changes.baseline).toMatchObject({ runId: 'r1' });
    expect(second.manifest.changes!.baseline).toMatchObject({ runId: 'r1', manifest: `${first.runFolder}/manifest.json` });

    const added = sim.tenant.risks(t.registers[1]!.id).find((r) => r.title === 'Vendor insolvency')!;
    const newItem = sim.tenant.boardItem(board.id, sim.tenant.boardItemCount(board.id) - 1)!;
    const piRow = csvObjects(await readCsv(join(root, first.runFolder, 'pi-objectives.csv'))).find((r) => r.id === piObjective.id)!;
    const expected: Change[] = [
      ...[toClose, toReopen, toRelevel, toReassign].flatMap((r) =>
        fieldChanges('Risks', r.key, r.title, before.get(r.id)!, riskFields(sim.tenant.risk(r.id)!)),
      ),
      { table: 'Risks', kind: 'added', key: added.key, title: 'Vendor insolvency', change: 'added', from: '', to: '' },
      { table: 'Risks', kind: 'removed', key: toRemove.key, title: snapshotTitle(toRemove.title)!, change: 'removed', from: '', to: '' },
      { table: 'Strategic themes', kind: 'changed', key: theme.key, title: theme.title, change: 'Progress', from: pct(progressBefore), to: pct(progressBefore + 10) },
      ...fieldChanges('OKRs', objective.key, objective.title, objectiveBefore, { Progress: '77.5 %', Status: 'At Risk', 'Actual BV': '9' }),
      { table: 'PI objectives', kind: 'changed', key: piObjective.id, title: piObjective.title, change: 'Completion', from: pct(Number(piRow.completion)), to: '88.0 %' },
      { table: 'PI objectives', kind: 'changed', key: piObjective.id, title: piObjective.title, change: 'Status', from: piObjective.status.title, to: piStatus },
      { table: 'PI objectives', kind: 'changed', key: piObjective.id, title: piObjective.title, change: 'Planned BV', from: String(piObjective.bvPlan), to: String(piObjective.bvPlan + 5) },
      ...(f0.status === 'Done' ? [] : [{ table: 'Board items', kind: 'changed', key: f0.externalKey, title: f0.summary, change: 'Status', from: f0.status, to: 'Done' }]),
      ...fieldChanges('Board items', f1.externalKey, f1.summary, { Team: f1Teams, Sprint: f1Sprints, Estimate: str(f1.estimates) }, { Team: otherTeam, Sprint: otherSprint, Estimate: '21' }),
      { table: 'Board items', kind: 'added', key: newItem.externalKey, title: 'Checkout redesign', change: 'added', from: '', to: '' },
      ...newItem.stories.map((s) => ({ table: 'Board items', kind: 'added', key: s.externalKey, title: s.summary, change: 'added', from: '', to: '' })),
      { table: 'Board items', kind: 'removed', key: f2.externalKey, title: snapshotTitle(f2.summary)!, change: 'removed', from: '', to: '' },
      ...f2.stories.map((s) => ({ table: 'Board items', kind: 'removed', key: s.externalKey, title: snapshotTitle(s.summary)!, change: 'removed', from: '', to: '' })),
    ];
    const listed = await changesCsv(second);
    expect(sortChanges(bare(listed))).toEqual(sortChanges(asCsv(expected)));
    // Where each row belongs, for people: its register, theme or board, and its teams where it has them.
    const whereOf = (table: string, key: string, change?: string) => listed.find((c) => c.table === table && c.key === key && (!change || c.change === change))!.where;
    const withTeams = (unit: string, teams: readonly string[] | undefined) => [unit, ...(teams?.length ? [teams.join('; ')] : [])].join(' · ');
    const registerOf = (r: RiskRecord) => t.register(r.riskRegister.id)!;
    const riskWhere = (r: RiskRecord) => withTeams(`${registerOf(r).title} (${registerOf(r).key})`, r.boardTeams?.map((x) => x.teamTitle));
    expect(whereOf('Risks', toClose.key, 'Status')).toBe(riskWhere(sim.tenant.risk(toClose.id)!));
    expect(whereOf('Risks', toRemove.key)).toBe(`${registerOf(toRemove).title} (${registerOf(toRemove).key})`);
    // Units are named as the selection names them: title and key (or id).
    expect(whereOf('OKRs', objective.key, 'Progress')).toBe(`${theme.title} (${theme.key})`);
    expect(whereOf('PI objectives', piObjective.id, 'Status')).toBe(`${t.board(piBoardId)!.record.title} (${piBoardId})`);
    expect(whereOf('Board items', f1.externalKey, 'Estimate')).toBe(`${board.record.title} (${board.id}) · ${otherTeam}`);
    expect(whereOf('Board items', f2.externalKey)).toBe(`${board.record.title} (${board.id})`);
    // Grouped by table, in the order of the workbook's sheets.
    const order = ['Risks', 'Strategic themes', 'OKRs', 'PI objectives', 'Board items'];
    expect(listed.map((c) => order.indexOf(c.table))).toEqual([...listed.map((c) => order.indexOf(c.table))].sort((a, b) => a - b));
    // No status id anywhere: the board's status ids are `<board>1n`.
    expect(listed.some((c) => c.from === done.id || c.to === done.id)).toBe(false);
    expect(second.changes.counts).toEqual({
      added: 2 + newItem.stories.length,
      removed: 2 + f2.stories.length,
      changed: new Set(listed.filter((c) => c.kind === 'changed').map((c) => `${c.table}/${c.key}`)).size,
      scope: 0,
    });
    expect(second.manifest.files.find((f) => f.path === 'changes.csv')!.rows).toEqual({ changes: listed.length });

    // The workbook's Changes sheet: the same rows, each kind cell coloured, item keys linked to the tracker.
    const sheet = await changesSheet(second);
    // Right after the Summary, although it is written after the data sheets.
    expect(sheet.names.slice(0, 4)).toEqual(['Summary', 'Needs attention', 'Trends', 'Changes']);
    // Headers for people; changes.csv keeps the column names.
    expect(sheet.header).toEqual(['Table', 'Change', 'Key', 'Item', 'Where', 'Field', 'Before', 'After']);
    expect(sheet.intro).toEqual([
      'Changes since 16/11/2026',
      `${second.changes.counts.added} added, ${second.changes.counts.removed} removed, ${second.changes.counts.changed} changed.`,
    ]);
    expect(sheet.header).toContain('Where');
    const sheetChanges = sheet.rows.map(({ fill: _f, link: _l, ...c }) => c);
    // An emptied (or newly filled) field shows "(none)" on its empty side on the sheet; the CSV keeps it empty.
    const forPeople = (c: Change): Change =>
      c.kind === 'changed' ? { ...c, from: c.from === '' ? '(none)' : c.from, to: c.to === '' ? '(none)' : c.to } : c;
    expect(sheetChanges.some((c) => c.to === '(none)' || c.from === '(none)')).toBe(true);
    // A changed resolution date is a date cell in the report's locale (en-GB), not ISO text.
    expect(sheet.dated.length).toBeGreaterThan(0);
    expect(new Set(sheet.dated)).toEqual(new Set(['dd/mm/yyyy']));
    expect(sortChanges(bare(sheetChanges))).toEqual(sortChanges(expected.map(forPeople)));
    // Row by row the same as changes.csv (whose titles are formula-neutralised).
    expect(sheetChanges.map((c) => ({ ...c, title: c.title && neutraliseFormula(c.title) }))).toEqual(listed.map(forPeople));
    for (const row of sheet.rows) {
      expect(row.fill).toBe(`FF${KIND_COLORS[row.kind as keyof typeof KIND_COLORS].slice(1).toUpperCase()}`);
    }
    const linked = sheet.rows.find((r) => r.key === f1.externalKey)!;
    expect(linked.link).toBe(f1.externalUrl);

    // The Summary's figures carry their deltas; the e-mail digest counts and lists the top changes.
    const headline = second.summary.sections.filter((x) => x.role === 'headline').flatMap((x) => x.lines);
    const numeric = headline.filter((l) => typeof l.value === 'number');
    expect(numeric.length).toBeGreaterThan(0);
    for (const line of numeric) {
      // A percentage's change is in percentage points, one decimal.
      expect(line.delta).toMatch(line.type === 'percent' ? /^(unchanged|[+−]\d+\.\d pp) since 16\/11\/2026$/ : /^(unchanged|[+−][\d,.]+) since 16\/11\/2026$/);
    }
    expect(numeric.some((l) => l.type === 'percent' && l.delta?.endsWith('pp since 16/11/2026'))).toBe(true);
    const summarySheet = (await readWorkbook(join(root, second.runFolder, 'weekly.xlsx'))).getWorksheet('Summary')!;
    const shown = summarySheet.getRows(1, summarySheet.rowCount)!.find((r) => r.getCell(1).text === numeric[0]!.label)!;
    expect([shown.getCell(3).value, shown.getCell(4).text]).toEqual([numeric[0]!.value, numeric[0]!.delta]);
    const digest = changesDigest(second.changes, readerFormat('en-GB', 'UTC'));
    expect(digest).toMatchObject({ since: '16/11/2026', note: null, counts: second.changes.counts });
    expect(digest.leftOut.reduce((n, p) => n + p.count, 0)).toBe(listed.length - 10);
    expect(digest.top).toHaveLength(10);
    // Risks added or removed come before any status move.
    const firstStatus = digest.top.findIndex((r) => r.what === 'Status');
    const lastItem = digest.top.findLastIndex((r) => r.table === 'Risks' && (r.kind === 'added' || r.kind === 'removed'));
    expect(lastItem).toBeGreaterThanOrEqual(0);
    expect(firstStatus === -1 || lastItem < firstStatus).toBe(true);
  });

  it('reports a board added to or removed from the selection as a scope change, not as its rows', async () => {
    const [b0, b1] = sim.tenant.visibleTo(sim.credentials().email).boards;
    const only = (ids: string[]): ReportDefinitionInput => ({ ...BASE, datasets: { boardItems: { boards: ids } } });
    await run(only([b0!.id]), '2026-11-16T06:00:00Z', 'r1');
    const wider = await run(only([b0!.id, b1!.id]), '2026-11-17T06:00:00Z', 'r2');
    const b1Rows = sim.tenant.boardItems(b1!.id).reduce((n, item) => n + 1 + item.stories.length, 0);
    expect(await changesCsv(wider)).toEqual([
      { table: 'Board items', kind: 'scope', key: b1!.id, title: `${b1!.record.title} (${b1!.id})`, change: 'added to the selection', from: '', to: `${b1Rows} rows` },
    ]);
    const narrower = await run(only([b1!.id]), '2026-11-18T06:00:00Z', 'r3');
    const b0Rows = sim.tenant.boardItems(b0!.id).reduce((n, item) => n + 1 + item.stories.length, 0);
    expect(await changesCsv(narrower)).toEqual([
      { table: 'Board items', kind: 'scope', key: b0!.id, title: `${b0!.record.title} (${b0!.id})`, change: 'removed from the selection', from: `${b0Rows} rows`, to: '' },
    ]);
    // A dataset added to the definition: one scope row per new table, not every row as added.
    const withRisks = await run({ ...only([b1!.id]), datasets: { boardItems: { boards: [b1!.id] }, risks: {} } }, '2026-11-19T06:00:00Z', 'r4');
    expect(await changesCsv(withRisks)).toEqual([
      expect.objectContaining({ table: 'Risks', kind: 'scope', change: 'added to the report' }),
    ]);
    expect(withRisks.changes.counts).toEqual({ added: 0, removed: 0, changed: 0, scope: 1 });
  });

  it('does not compare a table whose tracked columns changed, and says so in one sentence', async () => {
    await run({ ...BASE, datasets: { piObjectives: {} } }, '2026-11-16T06:00:00Z', 'r1');
    const second = await run({ ...BASE, datasets: { piObjectives: { additionalColumns: true } } }, '2026-11-23T06:00:00Z', 'r2');
    const listed = await changesCsv(second);
    expect(listed).toEqual([
      expect.objectContaining({ table: 'PI objective items', kind: 'note', title: expect.stringMatching(/^PI objective items were not compared: the earlier run's table had other columns/) }),
    ]);
    const third = await run({ ...BASE, datasets: { piObjectives: { additionalColumns: true, completionType: 3 } } }, '2026-11-24T06:00:00Z', 'r3');
    expect(await changesCsv(third)).toEqual([
      expect.objectContaining({ table: 'PI objectives', kind: 'note', title: 'PI objectives were not compared: piObjectives.completionType was the default in the earlier run and is 3 now.' }),
    ]);
  });

  it('exports without a comparison when the baseline is damaged or unreadable, and says why', async () => {
    const first = await run(BASE, '2026-11-16T06:00:00Z', 'r1');
    const riskSnapshot = first.manifest.changes!.snapshots.find((s) => s.table === 'risks')!;
    await writeFile(join(root, first.runFolder, riskSnapshot.path), 'not gzip at all');
    const second = await run(BASE, '2026-11-17T06:00:00Z', 'r2');
    const listed = await changesCsv(second);
    expect(listed).toEqual([
      expect.objectContaining({ table: 'Risks', kind: 'note', title: "Risks were not compared: the earlier run's snapshot is damaged (its checksum does not match the manifest)." }),
    ]);
    expect(second.latestUpdated).toBe(true);

    // The baseline's manifest unreadable: latest.json still points at it.
    await writeFile(join(root, second.manifestKey), '{ broken');
    const third = await run(BASE, '2026-11-18T06:00:00Z', 'r3');
    expect(third.written).toBe(true);
    expect(await changesCsv(third)).toEqual([
      expect.objectContaining({
        table: 'All tables',
        kind: 'note',
        title: `The manifest of an earlier run (${second.manifestKey}) could not be read, so no earlier scheduled run was found to compare with.`,
      }),
    ]);
  });

  it('streams the baseline twice and, when either read fails, exports without that table\'s comparison and says why', async () => {
    const first = await run(BASE, '2026-11-16T06:00:00Z', 'r1');
    expect(first.written).toBe(true);
    const risk = sim.tenant.risks(sim.tenant.registers[0]!.id)[0]!;
    sim.advance({ date: new Date('2026-11-17T00:00:00Z'), risks: [{ id: risk.id, impact: risk.impact === 'High' ? 'Low' : 'High' }] });
    /** Fails the `failing`-th read of the risks snapshot (1: the first pass over its keys, 2: the pass for old values). */
    const failingRead = (failing: number) => {
      let reads = 0;
      return class extends LocalDirectoryStorage {
        override async readObject(key: string) {
          if (key.endsWith('snapshots/risks.ndjson.gz') && ++reads === failing) {
            throw new StorageError('could not read the snapshot: injected: the connection was reset', { retryable: true });
          }
          return super.readObject(key);
        }
      };
    };
    const notes = async (failing: number, at: string, runId: string) => {
      const Failing = failingRead(failing);
      storage = () => new Failing(root);
      try {
        const result = await run(BASE, at, runId);
        expect(result.written).toBe(true);
        return (await changesCsv(result)).filter((c) => c.table === 'Risks');
      } finally {
        storage = () => new LocalDirectoryStorage(root);
      }
    };
    expect(await notes(1, '2026-11-17T06:00:00Z', 'r2')).toEqual([
      expect.objectContaining({
        kind: 'note',
        title: "Risks were not compared: the earlier run's snapshot could not be read (could not read the snapshot: injected: the connection was reset).",
      }),
    ]);
    sim.advance({ date: new Date('2026-11-18T00:00:00Z'), risks: [{ id: risk.id, impact: risk.impact }] });
    expect(await notes(2, '2026-11-18T06:00:00Z', 'r3')).toEqual([
      expect.objectContaining({
        kind: 'note',
        title: "Risks were not compared: the earlier run's snapshot could not be read again (could not read the snapshot: injected: the connection was reset).",
      }),
    ]);
    // Read without failures, r3's snapshot compares: the risk's impact changed again since.
    const next = risk.impact === 'High' ? 'Low' : 'High';
    sim.advance({ date: new Date('2026-11-19T00:00:00Z'), risks: [{ id: risk.id, impact: next }] });
    const again = await run(BASE, '2026-11-19T06:00:00Z', 'r4');
    expect((await changesCsv(again)).filter((c) => c.table === 'Risks')).toEqual([
      expect.objectContaining({ kind: 'changed', key: risk.key, change: 'Impact' }),
    ]);
  });

  it('exports without a comparison when latest.json is unreadable, and says why', async () => {
    await run(BASE, '2026-11-16T06:00:00Z', 'r1');
    await writeFile(join(root, 'weekly', 'latest.json'), '{ broken');
    const second = await run(BASE, '2026-11-17T06:00:00Z', 'r2');
    expect(second.written).toBe(true);
    expect(await changesCsv(second)).toEqual([
      expect.objectContaining({ table: 'All tables', kind: 'note', title: 'The previous run could not be read (latest.json is not valid), so there is nothing to compare with this time.' }),
    ]);
    // The run repaired latest.json, so the next run compares again.
    const third = await run(BASE, '2026-11-18T06:00:00Z', 'r3');
    expect(third.changes.baseline).toMatchObject({ runId: 'r2' });
  });

  it('compares scheduled runs with scheduled runs and on-demand runs with on-demand runs', async () => {
    const risk = sim.tenant.allRisks.find((r) => r.status.status === 'Open')!;
    await run(BASE, '2026-11-16T06:00:00Z', 's1', 'scheduled');
    sim.advance({ risks: [{ id: risk.id, status: 'In Progress' }] });
    const onDemand = await run(BASE, '2026-11-18T09:00:00Z', 'd1', 'on-demand');
    expect(onDemand.changes.baseline).toBeNull();
    expect(onDemand.changes.note).toBe('No earlier on-demand run was found, so there is nothing to compare with yet.');
    sim.advance({ risks: [{ id: risk.id, status: 'Mitigated' }] });
    const scheduled = await run(BASE, '2026-11-23T06:00:00Z', 's2', 'scheduled');
    // Against s1, across the on-demand run: Open → Mitigated, not In Progress → Mitigated.
    expect(scheduled.changes.baseline).toMatchObject({ runId: 's1' });
    expect((await changesCsv(scheduled)).filter((c) => c.change === 'Status')).toEqual([
      expect.objectContaining({ key: risk.key, from: 'Open', to: 'Mitigated' }),
    ]);
    const onDemand2 = await run(BASE, '2026-11-23T10:00:00Z', 'd2', 'on-demand');
    expect(onDemand2.changes.baseline).toMatchObject({ runId: 'd1' });
    expect((await changesCsv(onDemand2)).filter((c) => c.change === 'Status')).toEqual([
      expect.objectContaining({ key: risk.key, from: 'In Progress', to: 'Mitigated' }),
    ]);
  });

  it('takes the newest run at least the minimum age old as the baseline ("P7D")', async () => {
    const weekly: ReportDefinitionInput = { ...BASE, datasets: { risks: {} }, changes: { baseline: 'P7D' } };
    await run(weekly, '2026-11-16T06:00:00Z', 'd16');
    await run(weekly, '2026-11-20T06:00:00Z', 'd20');
    const early = await run(weekly, '2026-11-22T06:00:00Z', 'd22');
    expect(early.changes.note).toBe('No earlier scheduled run at least 7 days old was found, so there is nothing to compare with yet.');
    const later = await run(weekly, '2026-11-23T06:00:00Z', 'd23');
    expect(later.changes.baseline).toMatchObject({ runId: 'd16' });
    const latest = await run(weekly, '2026-11-27T07:00:00Z', 'd27');
    expect(latest.changes.baseline).toMatchObject({ runId: 'd20' });
  });
});
