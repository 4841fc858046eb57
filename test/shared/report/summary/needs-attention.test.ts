import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { headlineSentence } from '../../../../shared/email/email-content';
import { readerFormat } from '../../../../shared/core/format';
import { runOf } from '../../../support/run-builder';
import { csvObjects, readCsv, readWorkbook } from '../../../support/read-output';
import type { ExportResult } from '../../../../shared/report/run/result';
import type { LinkValue } from '../../../../shared/table/table';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';

/**
 * "Needs attention" counted and listed whole: the headline's count is the number of items, the
 * workbook's "Needs attention" sheet lists every one, and each "n more" of the Summary leads there.
 * Recounted from the simulator's records by the rules a reader applies by hand.
 */
const TODAY = '2026-11-23';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const isoOf = (riskDate: string) => {
  const [dd, mon, yyyy] = riskDate.split('-');
  return `${yyyy}-${String(MONTHS.indexOf(mon!) + 1).padStart(2, '0')}-${dd}`;
};

/** Where a cell links: its hyperlink, or the address of its HYPERLINK formula (a link that wraps is written so). */
function linkOf(cell: ExcelJS.Cell): string | undefined {
  const value = cell.value as { hyperlink?: string; formula?: string } | null;
  return value?.hyperlink ?? (value?.formula ? /^HYPERLINK\("([^"]*)"/.exec(value.formula)?.[1] : undefined);
}

describe('every count of "Needs attention" leads to its list (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  let result: ExportResult;
  let sheet: ExcelJS.Worksheet;
  let summarySheet: ExcelJS.Worksheet;
  /** The sheet's items: header on row 4, items from row 5. */
  const items = () => {
    const header = (sheet.getRow(4).values as unknown[]).slice(1).map(String);
    const out: Record<string, ExcelJS.Cell>[] = [];
    for (let r = 5; r <= sheet.rowCount; r++) out.push(Object.fromEntries(header.map((h, i) => [h, sheet.getRow(r).getCell(i + 1)])));
    return out;
  };

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo' });
    root = await mkdtemp(join(tmpdir(), 'attention-'));
    result = await runOf(parseReportDefinition({ name: 'rte-weekly', formats: ['xlsx', 'csv'], datasets: { risks: {}, okrs: {}, piObjectives: {} } }))
      .in(root)
      .against(sim)
      .at(`${TODAY}T06:00:00Z`)
      .export();
    const workbook = await readWorkbook(join(root, result.runFolder, 'rte-weekly.xlsx'));
    sheet = workbook.getWorksheet('Needs attention')!;
    summarySheet = workbook.getWorksheet('Summary')!;
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists right after the Summary every open high or critical risk that is overdue or unowned, with its owner, due date and days overdue', () => {
    expect(sheet.workbook.worksheets.map((w) => w.name).slice(0, 2)).toEqual(['Summary', 'Needs attention']);
    const due = sim.tenant.allRisks.filter(
      (r) =>
        !['Mitigated', 'Closed'].includes(r.status.status) &&
        ['High', 'Critical'].includes(r.riskLevel.title) &&
        (!r.responsible || (r.resolutionDate && isoOf(r.resolutionDate) < TODAY)),
    );
    expect(due.length).toBeGreaterThan(0);
    const risks = items().filter((i) => i.What!.text === 'Risk');
    expect(risks.map((i) => i.Item!.text.split(' ')[0]).sort()).toEqual(due.map((r) => r.key).sort());
    for (const row of risks) {
      const risk = due.find((r) => r.key === row.Item!.text.split(' ')[0])!;
      expect(row.Owner!.text).toBe(risk.responsible?.user ?? '');
      expect(row.Level!.text).toBe(risk.riskLevel.title);
      const overdue = risk.resolutionDate && isoOf(risk.resolutionDate) < TODAY;
      expect(row['Days overdue']!.value).toBe(overdue ? (Date.parse(TODAY) - Date.parse(isoOf(risk.resolutionDate!))) / 86_400_000 : null);
      if (risk.resolutionDate) expect((row['Due date']!.value as Date).toISOString().slice(0, 10)).toBe(isoOf(risk.resolutionDate));
      expect(linkOf(row.Item!)).toMatch(/^#'Risks'!A\d+$/);
    }
  });

  it('gives the Risks table is_open, is_overdue and days_overdue, so filtering it yields the risks the sheet lists', async () => {
    const rows = csvObjects(await readCsv(join(root, result.runFolder, 'risks.csv')));
    expect(rows).toHaveLength(sim.tenant.allRisks.length);
    for (const row of rows) {
      const risk = sim.tenant.allRisks.find((r) => r.key === row.key)!;
      const open = !['Mitigated', 'Closed'].includes(risk.status.status);
      const late = open && risk.resolutionDate !== undefined && risk.resolutionDate !== null && isoOf(risk.resolutionDate) < TODAY;
      expect([row.is_open, row.is_overdue], row.key).toEqual([String(open), String(late)]);
      expect(row.days_overdue).toBe(late ? String((Date.parse(TODAY) - Date.parse(isoOf(risk.resolutionDate!))) / 86_400_000) : '');
    }
    const filtered = rows.filter((r) => r.is_open === 'true' && ['High', 'Critical'].includes(r.risk_level!) && (r.is_overdue === 'true' || r.responsible === ''));
    const listed = items().filter((i) => i.What!.text === 'Risk').map((i) => i.Item!.text.split(' ')[0]);
    expect(filtered.map((r) => r.key).sort()).toEqual(listed.sort());
  });

  it('ranks a Critical risk without an owner above every owned Critical risk that is only overdue', () => {
    const critical = items().filter((i) => i.What!.text === 'Risk' && i.Level!.text === 'Critical');
    const unowned = critical.map((r, i) => (r.Owner!.text === '' ? i : -1)).filter((i) => i >= 0);
    const ownedLate = critical.map((r, i) => (r.Owner!.text !== '' ? i : -1)).filter((i) => i >= 0);
    expect(unowned.length).toBeGreaterThan(0);
    expect(Math.max(...unowned)).toBeLessThan(Math.min(...ownedLate, Infinity));
  });

  it('counts items, not rows, in the headline, and says what they are', () => {
    const all = items();
    const byKind = new Map<string, number>();
    for (const i of all) byKind.set(i.What!.text, (byKind.get(i.What!.text) ?? 0) + 1);
    const plural = (kind: string, n: number) => `${n} ${kind === 'Risk' ? 'risk' : kind}${n === 1 ? '' : 's'}`;
    const expected = `${all.length} need attention: ${[...byKind].map(([k, n]) => plural(k, n)).join(', ')}`;
    expect(headlineSentence(result.summary, readerFormat('en-US', 'UTC')).split(' · ').at(-1)).toBe(expected);
  });

  it('leads each "n more" of the Summary to the first item it stands for', () => {
    const attention = result.summary.sections.find((s) => s.role === 'attention')!.grid!.rows;
    const more = attention.filter((r) => r.more);
    expect(more.length).toBeGreaterThan(0);
    const listed = items();
    for (const row of more) {
      const link = row.values[2] as LinkValue;
      const target = Number(/!A(\d+)$/.exec(link.url)![1]);
      // Shown: the ten before it of its kind; the one it leads to is the eleventh.
      const ofKind = listed.map((i, n) => ({ i, n })).filter(({ i }) => i.What!.text === row.more!.kind);
      expect(target).toBe(5 + ofKind[10]!.n);
      expect(ofKind.length).toBe(10 + row.more!.count);
    }
    // The Summary sheet holds the same link on its "n more" cells.
    const links: string[] = [];
    summarySheet.eachRow((r) => r.eachCell((c) => {
      // An "n more" link spans C:H: its merged cells repeat the first one's value.
      if (c.isMerged && c.master.address !== c.address) return;
      const h = linkOf(c);
      if (h?.startsWith("#'Needs attention'")) links.push(h);
    }));
    expect(links).toEqual(more.map((r) => (r.values[2] as LinkValue).url));
  });
});
