import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import type { ExportResult } from '../../../shared/report/run/result';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { csvObjects, readCsv } from '../../support/read-output';

const DEFINITION: ReportDefinitionInput = {
  name: 'acme-weekly',
  timeZone: 'Europe/Berlin',
  datasets: { risks: {}, okrs: {}, piObjectives: { additionalColumns: true }, boardItems: {} },
  formats: ['xlsx', 'csv', 'parquet'],
  links: { extBBrowseUrl: 'https://tracker.example.com/browse/{key}' },
};
const TABLES = ['risks', 'risk-custom-fields', 'strategic-themes', 'okrs', 'pi-objectives', 'pi-objective-items', 'board-items'];

describe('Parquet tables read back with DuckDB (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  let first: ExportResult;
  let second: ExportResult;
  let db: DuckDBInstance;
  let duck: DuckDBConnection;

  const table = (name: string) => `read_parquet('${root}/acme-weekly/tables/${name}/**/*.parquet', hive_partitioning = true)`;
  const query = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS();

  beforeAll(async () => {
    // Lists of teams are asserted: the docs vocabulary sends teamsAndSprints as text, kept as is (docs/planning-api.md).
    sim = await startSimulator({ tenant: 'demo', vocabulary: 'contract' });
    root = await mkdtemp(join(tmpdir(), 'parquet-tables-'));
    const run = (input: ReportDefinitionInput, runId: string, at: string) =>
      runOf(parseReportDefinition(input)).in(root).against(sim).at(at).withRunId(runId).export();
    first = await run(DEFINITION, 'run-1', '2026-11-23T06:00:00Z');
    // The next day, risks only, twice: a second partition of one table, with two runs in it.
    second = await run({ ...DEFINITION, datasets: { risks: {} } }, 'run-2', '2026-11-24T06:00:00Z');
    await run({ ...DEFINITION, datasets: { risks: {} } }, 'run-3', '2026-11-24T07:00:00Z');
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
  });
  afterAll(async () => {
    duck?.closeSync();
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('writes one prefix per table with hive partitions, and leaves the human run folder as it was', async () => {
    for (const name of TABLES) {
      const files = await readdir(join(root, 'acme-weekly/tables', name, 'dt=2026-11-23/run=run-1'));
      expect(files).toEqual(['part-00000.parquet']);
    }
    expect(await readdir(join(root, 'acme-weekly/tables/risks/dt=2026-11-24/run=run-2'))).toEqual(['part-00000.parquet']);
    const runFolder = (await readdir(join(root, first.runFolder))).sort();
    expect(runFolder.some((f) => f.endsWith('.parquet'))).toBe(false);
    expect(runFolder).toContain('manifest.json');
  });

  it('lists every table file in the manifest with rows, bytes and sha256 as written', async () => {
    const entries = first.manifest.tables ?? [];
    // The runs table last: its file is the run's last copy into the tables.
    expect(entries.map((e) => e.table)).toEqual([...TABLES, 'runs']);
    for (const entry of entries) {
      const bytes = await readFile(join(root, 'acme-weekly', entry.path));
      expect(entry.path).toBe(`tables/${entry.table}/dt=2026-11-23/run=run-1/part-00000.parquet`);
      expect(entry.bytes).toBe(bytes.length);
      expect(entry.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(entry.rows).toBe(entry.table === 'runs' ? TABLES.length : first.manifest.summary.rows[entry.table]);
      const [count] = await query(`SELECT count(*) AS n FROM read_parquet('${join(root, 'acme-weekly', entry.path)}')`);
      expect(Number(count?.n)).toBe(entry.rows);
    }
  });

  it('publishes each schema at tables/<table>/_schema.json, equal to the committed contract and the manifest', async () => {
    for (const name of TABLES) {
      const published = await readFile(join(root, 'acme-weekly/tables', name, '_schema.json'), 'utf8');
      const committed = await readFile(new URL(`../../../schemas/${name}.json`, import.meta.url), 'utf8');
      expect(published).toBe(committed);
      expect(first.manifest.schemas?.[name]).toEqual(JSON.parse(committed));
    }
  });

  it('types the columns from the table definitions: DATE, DOUBLE, LIST<string>, UTC TIMESTAMP', async () => {
    const risks = await query(`DESCRIBE SELECT * FROM ${table('risks')}`);
    const types = Object.fromEntries(risks.map((r) => [r.column_name, r.column_type]));
    expect(types).toMatchObject({
      key: 'VARCHAR', title: 'VARCHAR', raised_date: 'DATE', resolution_date: 'DATE', watchers: 'VARCHAR[]',
      linked_items: 'VARCHAR[]', run_id: 'VARCHAR', exported_at: 'TIMESTAMP WITH TIME ZONE', dt: 'DATE', run: 'VARCHAR',
      // Custom fields keep their types too.
      cf_cost_impact_k: 'DOUBLE', cf_review_date: 'DATE',
    });
    const items = await query(`DESCRIBE SELECT * FROM ${table('board-items')}`);
    expect(Object.fromEntries(items.map((r) => [r.column_name, r.column_type]))).toMatchObject({
      estimates: 'DOUBLE', completion_by_status: 'DOUBLE', created_on: 'DATE', teams: 'VARCHAR[]', sprints: 'VARCHAR[]',
    });
    const okrs = await query(`DESCRIBE SELECT * FROM ${table('okrs')}`);
    expect(okrs.find((r) => r.column_name === 'level')?.column_type).toBe('BIGINT');
  });

  it('keeps raw values: formula-like and non-ASCII titles, control characters and the 40,000-character description', async () => {
    const rows = await query(`SELECT key, title, description, mitigation FROM ${table('risks')} WHERE run = 'run-1'`);
    const byKey = new Map(rows.map((r) => [r.key as string, r]));
    const risks = sim.tenant.allRisks;
    expect(rows).toHaveLength(risks.length);
    for (const risk of risks) {
      const row = byKey.get(risk.key)!;
      expect(row.title).toBe(risk.title);
      expect(row.description).toBe(risk.riskDesc ?? null);
      expect(row.mitigation).toBe(risk.mitigationActions ?? null);
    }
    const titles = rows.map((r) => r.title);
    expect(titles).toContain('=HYPERLINK("http://x","y")');
    expect(titles).toContain('@cmd vendor escalation');
    expect(titles).toContain('Zürich datacentre move – 日本語 rollout 🚀');
    // Longer than an Excel cell holds (32,767): the workbook cuts it, Parquet keeps all of it.
    const longRisk = risks.find((r) => (r.riskDesc?.length ?? 0) >= 40_000)!;
    expect(byKey.get(longRisk.key)!.description).toBe(longRisk.riskDesc);
    expect(risks.some((r) => r.riskDesc?.includes('\u0001') && byKey.get(r.key)!.description === r.riskDesc)).toBe(true);
    // The CSV of the same run neutralises the formula for spreadsheets; Parquet does not.
    const csv = csvObjects(await readCsv(join(root, first.runFolder, 'risks.csv')));
    expect(csv.map((r) => r.title)).toContain('\'=HYPERLINK("http://x","y")');
  });

  it('round-trips the demo\'s custom fields as rows of risk-custom-fields, typed, keyed by field id', async () => {
    const described = await query(`DESCRIBE SELECT * FROM ${table('risk-custom-fields')}`);
    expect(Object.fromEntries(described.map((r) => [r.column_name, r.column_type]))).toMatchObject({
      risk_key: 'VARCHAR', field_id: 'VARCHAR', field_title: 'VARCHAR', field_type: 'VARCHAR', value_text: 'VARCHAR',
      value_number: 'DOUBLE', value_date: 'DATE', value_boolean: 'BOOLEAN', value_user_id: 'VARCHAR', run_id: 'VARCHAR',
    });
    const rows = await query(`SELECT * FROM ${table('risk-custom-fields')} WHERE run = 'run-1' ORDER BY risk_key, field_id`);
    const served = sim.tenant.allRisks.flatMap((risk) => (risk.customFields ?? []).map((field) => ({ risk, field })));
    expect(served.length).toBeGreaterThan(0);
    expect(rows).toHaveLength(served.length);
    const byKey = new Map(rows.map((r) => [`${r.risk_key as string}|${r.field_id as string}`, r]));
    const kinds = new Set<string>();
    for (const { risk, field } of served) {
      const row = byKey.get(`${risk.key}|${field.id}`)!;
      expect(row).toMatchObject({ field_title: field.title ?? null, field_type: field.type ?? null, risk_id: risk.id });
      const value = field.value as unknown;
      kinds.add(String(field.type));
      if (field.type === 'number') expect(row.value_number).toBe(typeof value === 'number' ? value : Number(value));
      else expect(row.value_number).toBeNull();
      if (field.type === 'date') expect(row.value_date).toBeInstanceOf(Date);
      if (field.type === 'userpicker') {
        expect(row.value_user_id).toBe((value as { id: string }).id);
        expect(row.value_text).toBe((value as { fullName: string }).fullName);
      }
      if (typeof value === 'string') expect(row.value_text).toBe(value);
    }
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['date', 'number', 'singleselect', 'userpicker']));
    // Selected by id, whatever its title: the same value as the risks table's cf_ column.
    const [joined] = await query(`
      SELECT count(*) AS n, count(*) FILTER (WHERE f.value_number IS NOT DISTINCT FROM r.cf_cost_impact_k) AS same
      FROM ${table('risk-custom-fields')} f JOIN ${table('risks')} r ON r.key = f.risk_key AND r.run_id = f.run_id
      WHERE f.field_id = 'cf-103'`);
    expect(Number(joined!.n)).toBeGreaterThan(0);
    expect(Number(joined!.same)).toBe(Number(joined!.n));
  });

  it('writes lists as lists, absent values as NULL, and percent as a fraction', async () => {
    const rows = await query(`SELECT key, watchers, resolution_date, raised_date FROM ${table('risks')} WHERE run = 'run-1'`);
    const byKey = new Map(rows.map((r) => [r.key as string, r]));
    let absentWatchers = 0;
    let unresolved = 0;
    for (const risk of sim.tenant.allRisks) {
      const row = byKey.get(risk.key)!;
      const watchers = risk.watcherList?.map((w) => w.Watcher) ?? null;
      expect(row.watchers).toEqual(watchers);
      if (watchers === null) absentWatchers++;
      if (risk.resolutionDate === undefined) {
        unresolved++;
        expect(row.resolution_date).toBeNull();
      }
      expect(row.raised_date).toBeInstanceOf(Date);
    }
    expect(absentWatchers).toBeGreaterThan(0);
    expect(unresolved).toBeGreaterThan(0);

    const csv = csvObjects(await readCsv(join(root, first.runFolder, 'board-items.csv')));
    const items = await query(`SELECT id, kind, completion_by_status, teams FROM ${table('board-items')}`);
    expect(items).toHaveLength(csv.length);
    const byId = new Map(items.map((r) => [`${r.kind as string}:${r.id as string}`, r]));
    let lists = 0;
    for (const line of csv) {
      const item = byId.get(`${line.kind}:${line.id}`)!;
      expect(item.completion_by_status).toBe(line.completion_by_status === '' ? null : Number(line.completion_by_status) / 100);
      expect(item.teams).toEqual(!line.teams ? null : line.teams.split('; '));
      if (Array.isArray(item.teams) && item.teams.length > 1) lists++;
    }
    expect(lists).toBeGreaterThan(0);
  });

  it('lists each published run in the runs table: one typed row per table with its row count', async () => {
    const described = await query(`DESCRIBE SELECT * FROM ${table('runs')}`);
    expect(Object.fromEntries(described.map((r) => [r.column_name, r.column_type]))).toEqual({
      table_name: 'VARCHAR', row_count: 'BIGINT', published_at: 'TIMESTAMP WITH TIME ZONE', run_id: 'VARCHAR',
      exported_at: 'TIMESTAMP WITH TIME ZONE', dt: 'DATE', run: 'VARCHAR',
    });
    const rows = await query(`SELECT run_id, table_name, row_count, published_at FROM ${table('runs')} ORDER BY run_id, table_name`);
    const at = (run: string) => ({ 'run-1': new Date('2026-11-23T06:00:00Z'), 'run-2': new Date('2026-11-24T06:00:00Z'), 'run-3': new Date('2026-11-24T07:00:00Z') })[run];
    const expected = (result: ExportResult, run: string) =>
      Object.entries(result.manifest.summary.rows).map(([name, n]) => ({ run_id: run, table_name: name, row_count: BigInt(n), published_at: at(run) }));
    expect(rows).toEqual(
      [...expected(first, 'run-1'), ...expected(second, 'run-2'), ...expected(second, 'run-3')].sort((a, b) => `${a.run_id} ${a.table_name}`.localeCompare(`${b.run_id} ${b.table_name}`)),
    );
    // The query of docs/downstream.md, "The newest complete run": risks of the newest run the runs table lists.
    const newest = await query(`
      WITH newest AS (SELECT max_by(run_id, published_at) AS run_id FROM ${table('runs')} WHERE table_name = 'risks')
      SELECT run_id, count(*) AS n FROM ${table('risks')} JOIN newest USING (run_id) GROUP BY ALL`);
    expect(newest.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([{ run_id: 'run-3', n: sim.tenant.allRisks.length }]);
  });

  it('answers one query across two runs\' partitions, including the latest run per day', async () => {
    const perRun = await query(
      `SELECT dt::VARCHAR AS dt, run, run_id, count(*) AS n, min(exported_at) AS at FROM ${table('risks')} GROUP BY ALL ORDER BY dt, run`,
    );
    const n = sim.tenant.allRisks.length;
    expect(perRun.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([
      { dt: '2026-11-23', run: 'run-1', run_id: 'run-1', n, at: new Date('2026-11-23T06:00:00Z') },
      { dt: '2026-11-24', run: 'run-2', run_id: 'run-2', n, at: new Date('2026-11-24T06:00:00Z') },
      { dt: '2026-11-24', run: 'run-3', run_id: 'run-3', n, at: new Date('2026-11-24T07:00:00Z') },
    ]);
    expect(second.manifest.tables?.map((t) => t.table)).toEqual(['risks', 'risk-custom-fields', 'runs']);
    // The query of docs/downstream.md: the newest run of each day.
    const latest = await query(`
      WITH risks AS (SELECT * FROM ${table('risks')}),
      latest AS (SELECT dt, max_by(run_id, exported_at) AS run_id FROM ${table('runs')} WHERE table_name = 'risks' GROUP BY dt)
      SELECT r.dt::VARCHAR AS dt, r.run_id, count(*) AS n FROM risks r JOIN latest USING (dt, run_id) GROUP BY ALL ORDER BY dt`);
    expect(latest.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([
      { dt: '2026-11-23', run_id: 'run-1', n },
      { dt: '2026-11-24', run_id: 'run-3', n },
    ]);
  });
});
