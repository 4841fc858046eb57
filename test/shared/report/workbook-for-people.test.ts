import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import type { ExportResult } from '../../../shared/report/run/result';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { readCsv, readWorkbook, sheetHeader, sheetKeys, sheetRows } from '../../support/read-output';

/** The demo workbook as a Release Train Engineer opens it: words, links, hidden ids, print setup, Summary. */
const TODAY = new Date('2026-11-23T06:00:00Z');

describe('the workbook people read (demo flavour)', () => {
  let sim: RunningSimulator;
  let root: string;
  let result: ExportResult;
  let workbook: ExcelJS.Workbook;
  const folder = () => join(root, result.runFolder);

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
    root = await mkdtemp(join(tmpdir(), 'workbook-people-'));
    result = await runOf(
      parseReportDefinition({
        name: 'rte-weekly',
        title: 'ART weekly',
        timeZone: 'Europe/Berlin',
        datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
      }),
    )
      .in(root)
      .against(sim)
      .at(TODAY)
      .withRunId('run-1')
      .export();
    workbook = await readWorkbook(join(folder(), 'rte-weekly.xlsx'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('names sheets for people and heads columns with labels; the CSV keeps the snake_case contract', async () => {
    expect(workbook.worksheets.map((s) => s.name)).toEqual([
      'Summary', 'Needs attention', 'Trends', 'Changes', 'Risks', 'Risk custom fields', 'Strategic themes', 'OKRs', 'PI objectives', 'PI objective items', 'Board items',
    ]);
    const risks = workbook.getWorksheet('Risks')!;
    const csv = await readCsv(join(folder(), 'risks.csv'));
    expect(csv.header.slice(0, 3)).toEqual(['register_key', 'register_title', 'key']);
    const header = sheetHeader(risks);
    expect(header.slice(0, 3)).toEqual(['Register', 'Register title', 'Risk']);
    expect(header).toContain('Owner');
    // A custom field is headed by its own title.
    expect(header[sheetKeys('risks', csv.header).indexOf('cf_cost_impact_k')]).toBe('Cost impact (k€)');
    expect(sheetHeader(workbook.getWorksheet('PI objectives')!)).toContain('Planned BV');
  });

  it('puts the long text of Risks and Strategic themes after the short columns; the CSV keeps the contract order', async () => {
    const csv = await readCsv(join(folder(), 'risks.csv'));
    expect(csv.header.indexOf('description')).toBeLessThan(csv.header.indexOf('is_open'));
    expect(csv.header.indexOf('cf_notes')).toBeGreaterThan(csv.header.indexOf('cf_cost_impact_k'));
    expect(sheetHeader(workbook.getWorksheet('Risks')!).slice(-3)).toEqual(['Description', 'Mitigation', 'Notes']);
    expect(sheetHeader(workbook.getWorksheet('Strategic themes')!).filter((h) => h !== '').at(-1)).toBe('Description');
    // The same text under the moved header as in the CSV's column.
    const row = sheetRows(workbook.getWorksheet('Risks')!, sheetKeys('risks', csv.header))[0]!;
    expect(row.cell('mitigation').text).toBe(csv.rows[0]![csv.header.indexOf('mitigation')]);
  });

  it('hides internal ids and colour codes (kept, unhideable) and never wraps ids', async () => {
    const risks = workbook.getWorksheet('Risks')!;
    const keys = sheetKeys('risks', (await readCsv(join(folder(), 'risks.csv'))).header);
    const hidden = keys.filter((_k, i) => risks.getColumn(i + 1).hidden);
    expect(hidden).toEqual(['id', 'risk_level_color', 'register_id', 'status_id', 'responsible_id', 'watcher_ids', 'linked_item_ids', 'team_ids', 'sprint_ids', 'register_status']);
    const first = sheetRows(risks, keys)[0]!;
    expect(first.cell('id').value).toBe(sim.tenant.allRisks[0]!.id);
    expect(first.cell('key').alignment?.wrapText ?? false).toBe(false);
    expect(first.cell('title').alignment?.wrapText).toBe(true);
  });

  it('indents OKR titles by level and puts the parent title beside its id', async () => {
    const okrs = workbook.getWorksheet('OKRs')!;
    const keys = sheetKeys('okrs', (await readCsv(join(folder(), 'okrs.csv'))).header);
    for (const row of sheetRows(okrs, keys).slice(0, 20)) {
      const level = row.cell('level').value as number;
      expect(row.cell('title').alignment?.indent ?? 0).toBe(level - 1);
      if (level === 3) expect(row.cell('parent_title').value).toBe(sim.tenant.objective(row.cell('parent_id').value as string)?.title);
    }
  });

  it('makes item keys hyperlinks whose text is the key, never an internal id', async () => {
    const items = workbook.getWorksheet('Board items')!;
    const keys = sheetKeys('board-items', (await readCsv(join(folder(), 'board-items.csv'))).header);
    const row = sheetRows(items, keys)[0]!;
    const link = row.cell('external_link').value as { text: string; hyperlink: string };
    expect(link.text).toBe(row.cell('external_key').value);
    expect(link.hyperlink).toMatch(/^https:\/\//);
  });

  it('prints the Summary portrait, fitted to width on as many pages as needed; data sheets landscape with the header row repeated; every page with a footer', () => {
    for (const sheet of workbook.worksheets) {
      expect(sheet.headerFooter.oddFooter, sheet.name).toMatch(/ART weekly.*23\/11\/2026.*&P/);
      if (sheet.name === 'Summary') {
        expect(sheet.pageSetup.orientation).toBe('portrait');
        expect([sheet.pageSetup.fitToWidth, sheet.pageSetup.fitToHeight]).toEqual([1, 0]);
        continue;
      }
      expect(sheet.pageSetup.orientation, sheet.name).toBe('landscape');
      // The Changes and Needs attention sheets' tables start under their heading and sentence (docs/changes.md); the
      // Trends sheet is small tables each with its own header, so no row repeats.
      const titles = sheet.name === 'Changes' || sheet.name === 'Needs attention' ? '4:4' : sheet.name === 'Trends' ? undefined : '1:1';
      expect(sheet.pageSetup.printTitlesRow, sheet.name).toBe(titles);
      // Fitted to the width only while the text stays at 7 pt; wider tables go across pages at 64 % with the key column repeated.
      if (sheet.pageSetup.fitToWidth === 1 && !sheet.pageSetup.printTitlesColumn) expect(sheet.pageSetup.fitToHeight, sheet.name).toBe(0);
      else expect([sheet.pageSetup.scale, sheet.pageSetup.printTitlesColumn], sheet.name).toEqual([64, expect.stringMatching(/^[A-Z]+:[A-Z]+$/)]);
    }
    expect(workbook.getWorksheet('Risks')!.pageSetup.printTitlesColumn).toBeDefined();
  });

  it('repeats the risk key through its title on every printed page of Risks, and freezes the panes after them', async () => {
    const keys = sheetKeys('risks', (await readCsv(join(folder(), 'risks.csv'))).header);
    const letter = (key: string) => String.fromCharCode(65 + keys.indexOf(key));
    const [key, title] = [letter('key'), letter('title')];
    expect(keys.indexOf('key')).toBeLessThan(keys.indexOf('title'));
    // As the file holds it: the workbook's defined name, not what a reader library makes of it.
    const xml = execFileSync('unzip', ['-p', join(folder(), 'rte-weekly.xlsx'), 'xl/workbook.xml'], { encoding: 'utf8' });
    const sheetIndex = workbook.worksheets.findIndex((s) => s.name === 'Risks');
    const titles = new RegExp(`<definedName name="_xlnm.Print_Titles" localSheetId="${sheetIndex}">&apos;Risks&apos;!\\$${key}:\\$${title},&apos;Risks&apos;!\\$1:\\$1</definedName>`);
    expect(xml).toMatch(titles);
    const risks = workbook.getWorksheet('Risks')!;
    expect(risks.pageSetup.printTitlesColumn).toBe(`${key}:${title}`);
    expect(risks.views[0]).toMatchObject({ state: 'frozen', xSplit: keys.indexOf('title') + 1, ySplit: 1 });
  });

  describe('the Summary sheet', () => {
    const rows = () => {
      const sheet = workbook.getWorksheet('Summary')!;
      const out: { a: string; b: ExcelJS.Cell; c: ExcelJS.Cell; row: ExcelJS.Row; n: number }[] = [];
      sheet.eachRow({ includeEmpty: false }, (row, n) => out.push({ a: row.getCell(1).text, b: row.getCell(2), c: row.getCell(3), row, n }));
      return out;
    };
    const value = (label: string) => rows().find((r) => r.a === label)?.c.value;

    it('opens with the headline figures, computed from the simulator independently', () => {
      const open = sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status));
      const today = '2026-11-23';
      const iso = (d: string) => new Date(`${d} UTC`).toISOString().slice(0, 10);
      expect(rows()[0]!.a).toBe('ART weekly');
      // The run's date under the title, the same as "About this run" says at the end.
      const generated = rows().filter((r) => r.a === 'Generated at');
      expect(generated.map((r) => r.n)).toEqual([2, generated[1]!.n]);
      expect(generated[0]!.c.value).toBeInstanceOf(Date);
      expect(generated[0]!.c.value).toEqual(generated[1]!.c.value);
      expect(rows()[2]!.a).toBe('Risks');
      expect(value('Open risks')).toBe(open.length);
      expect(value('Open high or critical risks')).toBe(open.filter((r) => ['High', 'Critical'].includes(r.riskLevel.title)).length);
      const overdue = open.filter((r) => r.resolutionDate && iso(r.resolutionDate.replace(/-/g, ' ')) < today).length;
      expect(overdue).toBeGreaterThan(0);
      expect(value('Overdue risks')).toBe(overdue);
      expect(value('Open risks without an owner')).toBe(open.filter((r) => !r.responsible).length);
    });

    it('links every Needs attention item to its row, and that row is the item', () => {
      const all = rows();
      const start = all.findIndex((r) => r.a === 'Needs attention');
      // A title that wraps is a HYPERLINK formula (LibreOffice wraps no hyperlink proper), a short one a hyperlink.
      const linkOf = (value: ExcelJS.CellValue): { text: string; hyperlink: string } | undefined => {
        if (typeof value !== 'object' || value === null) return undefined;
        if ('hyperlink' in value) return { text: value.text, hyperlink: value.hyperlink };
        const m = 'formula' in value ? /^HYPERLINK\("((?:[^"]|"")*)","((?:[^"]|"")*)"\)$/.exec(value.formula) : null;
        return m ? { hyperlink: m[1]!.replace(/""/g, '"'), text: m[2]!.replace(/""/g, '"') } : undefined;
      };
      const linked = all.slice(start).filter((r) => linkOf(r.b.value) !== undefined);
      expect(linked.length).toBeGreaterThan(3);
      for (const r of linked) {
        const { text, hyperlink } = linkOf(r.b.value)!;
        const m = /^#'([^']+)'!A(\d+)$/.exec(hyperlink)!;
        expect(m, hyperlink).not.toBeNull();
        const target = workbook.getWorksheet(m[1])!.getRow(Number(m[2]));
        const cells = (target.values as unknown[]).map((v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : ''));
        expect(cells.some((c) => c !== '' && text.includes(c) && c.length > 3), `${text} → ${m[1]} row ${m[2]}`).toBe(true);
      }
    });

    it('fills the level × status matrix with the register colours, in severity order', () => {
      const all = rows();
      const start = all.findIndex((r) => r.a === 'Risks by level and status');
      const levels = all.slice(start + 2, start + 6);
      expect(levels.map((r) => r.a)).toEqual(['Critical', 'High', 'Medium', 'Low']);
      for (const r of levels) {
        const colour = sim.tenant.allRisks.find((x) => x.riskLevel.title === r.a)!.riskLevel.color.replace('#', '');
        const fill = r.row.getCell(1).fill as { fgColor?: { argb?: string } };
        expect(fill.fgColor?.argb?.slice(2)).toBe(colour.toUpperCase());
      }
    });

    it('draws data bars on progress and predictability', () => {
      const sheet = workbook.getWorksheet('Summary')! as ExcelJS.Worksheet & { conditionalFormattings?: { ref: string; rules: { type: string }[] }[] };
      const bars = (sheet.conditionalFormattings ?? []).filter((cf) => cf.rules.some((r) => r.type === 'dataBar'));
      expect(bars.length).toBeGreaterThanOrEqual(3);
    });

    it('stores each text as the Summary has it: no hyphen, line break or "…" the source lacks', () => {
      const source = new Set<string>([result.summary.title]);
      const add = (v: unknown) => {
        if (typeof v === 'string') source.add(v);
        else if (typeof v === 'object' && v !== null && 'text' in v && typeof v.text === 'string') source.add(v.text);
      };
      for (const section of result.summary.sections) {
        add(section.heading);
        for (const line of section.lines) [line.label, line.value, line.delta].forEach(add);
        for (const c of section.grid?.columns ?? []) add(c.label);
        for (const row of section.grid?.rows ?? []) row.values.forEach(add);
      }
      const texts: string[] = [];
      workbook.getWorksheet('Summary')!.eachRow((row) => row.eachCell((cell) => {
        const v = cell.value;
        if (typeof v === 'string') texts.push(v);
        else if (typeof v === 'object' && v !== null && 'formula' in v) texts.push(/,"((?:[^"]|"")*)"\)$/.exec(v.formula)?.[1]?.replace(/""/g, '"') ?? '');
        else if (typeof v === 'object' && v !== null && 'text' in v && typeof v.text === 'string') texts.push(v.text);
      }));
      const altered = texts.filter((t) => /\n|-\s*$|…/.test(t) && !source.has(t));
      expect(altered).toEqual([]);
      expect(texts.filter((t) => /-\n/.test(t))).toEqual([]);
      // The headers and the scope stand whole.
      expect(texts).toEqual(expect.arrayContaining(['Predictability so far (PI in progress)', 'Uncommitted objectives', 'Features', 'Possible', 'Unlikely']));
      const scope = result.summary.sections.flatMap((s) => s.lines).find((l) => l.label === 'Risk registers')!.value as string;
      expect(texts).toContain(scope);
    });

    it('reads the heat map\'s probability from low to high, left to right', () => {
      const all = rows();
      const start = all.findIndex((r) => r.a.startsWith('Open risks by impact and probability'));
      const header = all.slice(start).find((r) => r.a.startsWith('Impact'))!;
      const probabilities = (header.row.values as unknown[]).slice(3).filter((v): v is string => typeof v === 'string');
      const scale = ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'];
      expect(probabilities.length).toBeGreaterThanOrEqual(3);
      expect(probabilities).toEqual([...probabilities].sort((a, b) => scale.indexOf(a) - scale.indexOf(b)));
    });

    it('keeps the run metadata in small print at the bottom', () => {
      const all = rows();
      const about = all.findIndex((r) => r.a === 'About this run');
      expect(about).toBeGreaterThan(all.findIndex((r) => r.a === 'Needs attention'));
      expect(all.slice(about).some((r) => r.a === 'Time zone')).toBe(true);
      // Where the run read from and as whom are the operators' (the manifest, the run list), on no reader's page.
      expect(all.some((r) => ['Planning API', 'Legacy API', 'Company prefix', 'Exported as', 'Run id'].includes(String(r.a)))).toBe(false);
    });
  });
});
