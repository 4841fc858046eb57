// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../../shared/report/definition/definition';
import { manifestSchema, type Manifest } from '../../../../shared/report/manifest/manifest';
import { completedManifest } from '../../../../shared/report/run/run-entry';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { killOnWord } from '../../../support/killed-child';
import type { CopyKilledRun, CopyKillPoint } from '../../../support/copy-killed-run';
import { runOf } from '../../../support/run-builder';

/**
 * Kill trials of the table copies (issue 52, item 7): an export process is killed (SIGKILL) at each
 * kind of step of its publishing into the table prefixes, and then only a NEW run of the report comes (the
 * next day's, another run id): the killed run's own retry never does. Read the way a downstream job
 * reads the tables (DuckDB over each prefix, hive partitions): after the new run every table holds the
 * killed run completely, and the `runs` table lists exactly the runs every table holds completely,
 * with their row counts. Before it, the half-published state is what the issue found (some tables
 * with the killed run, others without), and `runs` does not list it. Clocks are injected.
 */
const REPORT = 'killed-copies';
const DEFINITION: ReportDefinitionInput = { name: REPORT, timeZone: 'Europe/Berlin', formats: ['csv', 'parquet'], datasets: { risks: {}, boardItems: {} } };
/** risks, risk-custom-fields, board-items, then runs: the order of the run's copies. */
const TABLES = ['risks', 'risk-custom-fields', 'board-items'];
const COPIES = TABLES.length + 1;
const KILLED_AT = '2026-11-23T06:00:00Z';
const NEXT_AT = '2026-11-24T06:00:00Z';

/**
 * One kill before each kind of copy: the first (nothing copied), a middle one (some tables hold the run,
 * others not; copy 3 is the same kind, and the staging-expired test below kills there), the runs table's
 * (every table copied, runs not); then the two steps after the copies.
 */
const KILLED_BEFORE_COPIES = [1, 2, COPIES];
const KILL_POINTS: readonly [string, CopyKillPoint][] = [
  ...KILLED_BEFORE_COPIES.map((n): [string, CopyKillPoint] => [`before copy ${n} of ${COPIES}`, { beforeCopy: n }]),
  ['after the last copy, before the run is complete', 'before-complete'],
  ['complete, before it is taken off the runs publishing', 'before-note-off'],
];

describe('a run killed at each step of its table copies, then a new run of the report', () => {
  let sim: RunningSimulator;
  let db: DuckDBInstance;
  let duck: DuckDBConnection;
  const dirs: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
  });
  afterAll(async () => {
    duck?.closeSync();
    await sim?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  const query = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS();
  const table = (root: string, name: string) => `read_parquet('${root}/${REPORT}/tables/${name}/**/*.parquet', hive_partitioning = true)`;

  /** Rows of each table per run id, as DuckDB reads the whole prefix (a table without files: none). */
  async function rowsPerRun(root: string): Promise<Record<string, Record<string, number>>> {
    const all: Record<string, Record<string, number>> = {};
    const storage = new LocalDirectoryStorage(root);
    for (const name of TABLES) {
      const present = (await storage.listKeys(`${REPORT}/tables/${name}/dt=`)).length > 0;
      const counts = present ? await query(`SELECT run_id, count(*) AS n FROM ${table(root, name)} GROUP BY ALL ORDER BY ALL`) : [];
      all[name] = Object.fromEntries(counts.map((c) => [c.run_id as string, Number(c.n)]));
    }
    return all;
  }

  /** The runs table: run id → table → its row count, as the table lists them. */
  async function runsListed(root: string): Promise<Record<string, Record<string, number>>> {
    const present = (await new LocalDirectoryStorage(root).listKeys(`${REPORT}/tables/runs/dt=`)).length > 0;
    const rows = present ? await query(`SELECT run_id, table_name, row_count FROM ${table(root, 'runs')} ORDER BY ALL`) : [];
    const listed: Record<string, Record<string, number>> = {};
    for (const r of rows) (listed[r.run_id as string] ??= {})[r.table_name as string] = Number(r.row_count);
    return listed;
  }

  /** Every run the runs table lists is held completely by every table, with the rows it states. */
  async function expectRunsListOnlyComplete(root: string): Promise<void> {
    const tables = await rowsPerRun(root);
    for (const [runId, counts] of Object.entries(await runsListed(root))) {
      expect(Object.keys(counts).sort()).toEqual([...TABLES].sort());
      for (const name of TABLES) expect(tables[name]![runId], `${name} of ${runId}`).toBe(counts[name]);
    }
  }

  /** The query of docs/downstream.md, "The newest run of each day" (from runs), over board-items: each day's run and its rows. */
  async function newestRunOfEachDay(root: string): Promise<Record<string, { run_id: string; n: number }>> {
    if ((await new LocalDirectoryStorage(root).listKeys(`${REPORT}/tables/runs/dt=`)).length === 0) return {};
    const rows = await query(`
      WITH items AS (SELECT * FROM ${table(root, 'board-items')}),
      latest AS (SELECT dt, max_by(run_id, exported_at) AS run_id FROM ${table(root, 'runs')} WHERE table_name = 'board-items' GROUP BY dt)
      SELECT i.dt::VARCHAR AS dt, i.run_id, count(*) AS n FROM items i JOIN latest USING (dt, run_id) GROUP BY ALL ORDER BY dt`);
    return Object.fromEntries(rows.map((r) => [r.dt as string, { run_id: r.run_id as string, n: Number(r.n) }]));
  }

  /** The killed run's manifest (stored before its copies began): the rows each table must hold of it. */
  async function killedRows(root: string): Promise<Record<string, number>> {
    const bytes = await new LocalDirectoryStorage(root).getObject(`${REPORT}/dt=2026-11-23/run=killed/manifest.json`);
    const manifest: Manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes!).toString('utf8')));
    return Object.fromEntries(TABLES.map((name) => [name, manifest.summary.rows[name]!]));
  }

  /** Exports run `killed` in a child process and kills it (SIGKILL) on its word that it stopped at `killAt`. */
  async function killedAt(root: string, killAt: CopyKillPoint): Promise<void> {
    const job: CopyKilledRun = { dir: root, credentials: sim.credentials(), definition: DEFINITION, runId: 'killed', at: KILLED_AT, killAt };
    await killOnWord('test/support/copy-killed-run.ts', job, 'stopped');
  }

  /** The next day's run of the report (run id `next`); resolves with its rows per table. */
  async function nextRun(root: string): Promise<Record<string, number>> {
    const next = await runOf(parseReportDefinition(DEFINITION)).in(root).against(sim.credentials()).at(NEXT_AT).withRunId('next').export();
    expect(next.written).toBe(true);
    return Object.fromEntries(TABLES.map((t) => [t, next.manifest.summary.rows[t]!]));
  }

  for (const [name, killAt] of KILL_POINTS) {
    it(`killed ${name}: after the next day's run every table holds it completely, and runs lists only complete runs`, async () => {
      const root = await mkdtemp(join(tmpdir(), 'tables-killed-'));
      dirs.push(root);
      await killedAt(root, killAt);
      const expected = await killedRows(root);

      // The state the kill left: each table holds the killed run completely or not at all; those
      // before the cut hold it. runs lists it only once every table holds it.
      const copied = typeof killAt === 'object' ? killAt.beforeCopy - 1 : COPIES;
      const before = await rowsPerRun(root);
      for (const [i, t] of TABLES.entries()) expect(before[t], t).toEqual(i < copied ? { killed: expected[t] } : {});
      expect(await runsListed(root)).toEqual(copied === COPIES ? { killed: expected } : {});
      await expectRunsListOnlyComplete(root);
      // The newest run of its day, as downstream.md takes it, is never the half-published one.
      expect(await newestRunOfEachDay(root)).toEqual(copied === COPIES ? { '2026-11-23': { run_id: 'killed', n: expected['board-items'] } } : {});

      // Only a new run of the report: another run id, the next day. The killed run's lease lapsed long ago.
      const ledger = new LocalLedger(join(root, '.ledger'));
      const nextRows = await nextRun(root);

      const after = await rowsPerRun(root);
      for (const t of TABLES) expect(after[t], t).toEqual({ killed: expected[t], next: nextRows[t] });
      expect(await runsListed(root)).toEqual({ killed: expected, next: nextRows });
      await expectRunsListOnlyComplete(root);
      // The killed run is complete in the ledger, nothing of it is left staged, and the newest complete run is the new one.
      expect(await completedManifest({ ledger }, { report: REPORT, runId: 'killed' })).toBe(`${REPORT}/dt=2026-11-23/run=killed/manifest.json`);
      expect(await new LocalDirectoryStorage(root).listKeys(`_staging/${REPORT}/`)).toEqual([]);
      expect(await ledger.get(`publishing/${REPORT}`)).toMatchObject({ value: { runs: [] } });
      expect(await newestRunOfEachDay(root)).toEqual({ '2026-11-23': { run_id: 'killed', n: expected['board-items'] }, '2026-11-24': { run_id: 'next', n: nextRows['board-items'] } });
      const [newest] = await query(`SELECT max_by(run_id, published_at) AS run_id FROM ${table(root, 'runs')}`);
      expect(newest?.run_id).toBe('next');
    }, 120_000);
  }

  it('killed before copy 3, its staging expired before the next run: the next run takes the copies made back out, the run is in no table', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tables-killed-'));
    dirs.push(root);
    await killedAt(root, { beforeCopy: 3 });
    const expected = await killedRows(root);
    expect((await rowsPerRun(root)).risks).toEqual({ killed: expected.risks });
    // The bucket's lifecycle rule on the staging area (3 days) removed what the run had staged.
    const storage = new LocalDirectoryStorage(root);
    await storage.deleteObjects(await storage.listKeys(`_staging/${REPORT}/`));

    const nextRows = await nextRun(root);
    const after = await rowsPerRun(root);
    for (const t of TABLES) expect(after[t], t).toEqual({ next: nextRows[t] });
    expect(await runsListed(root)).toEqual({ next: nextRows });
    await expectRunsListOnlyComplete(root);
    const ledger = new LocalLedger(join(root, '.ledger'));
    expect(await completedManifest({ ledger }, { report: REPORT, runId: 'killed' })).toBeUndefined();
    expect(await ledger.get(`publishing/${REPORT}`)).toMatchObject({ value: { runs: [] } });
  }, 120_000);
});
