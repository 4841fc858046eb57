import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { parseReportDefinition, type ReportDefinition } from '../../../../shared/report/definition/definition';
import type { ExportResult } from '../../../../shared/report/run/result';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { runOf } from '../../../support/run-builder';
import { pausingAt, type WritePoint } from '../../../support/write-points';

/**
 * Publishing into the tables (docs/run-atomicity.md), read the way a downstream job reads them:
 * DuckDB over `tables/<table>/**\/*.parquet` with hive partitioning, at every step of a takeover.
 * Whatever attempts freeze, lose, resume or die, the table prefixes return exactly the rows of the
 * published runs, each once by key and run id. Clocks are injected: each attempt has its own, so a
 * frozen one's lease has lapsed for the next.
 */
const T0 = Date.parse('2026-11-23T06:00:00Z');
const HOUR = 3_600_000;
const REPORT = 'published';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Never settles: an attempt that reaches it is dead there (killed), and does nothing after. */
const killed = () => new Promise<void>(() => undefined);

describe('table prefixes hold only published rows, read with DuckDB at every step', () => {
  let sim: RunningSimulator;
  let root: string;
  let db: DuckDBInstance;
  let duck: DuckDBConnection;
  let definition: ReportDefinition;
  let risks: number;
  let items: number;

  const backend = () => ({ storage: new LocalDirectoryStorage(root), ledger: new LocalLedger(join(root, '.ledger')) });
  const run = (runId: string, at: number, pause?: (point: WritePoint, key: string) => Promise<void>) =>
    runOf(definition)
      .withBackend(pause ? pausingAt(backend(), pause) : backend())
      .against(sim.credentials())
      .at(new Date(at))
      .withRunId(runId)
      .withContext({ leaseMs: 60_000 })
      .export();
  const table = (name: string) => `read_parquet('${root}/${REPORT}/tables/${name}/**/*.parquet', hive_partitioning = true)`;
  const query = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS();

  /** Rows per run id in each table, and the rows that occur more than once by key and run id. */
  async function tablesNow(): Promise<{ runs: Record<string, Record<string, number>>; duplicates: number }> {
    const runs: Record<string, Record<string, number>> = {};
    let duplicates = 0;
    for (const [name, key] of [['risks', 'key'], ['board-items', `kind || ':' || id`]] as const) {
      const counts = await query(`SELECT run_id, run, count(*) AS n FROM ${table(name)} GROUP BY ALL ORDER BY run_id`);
      for (const c of counts) expect(c.run).toBe(c.run_id);
      runs[name] = Object.fromEntries(counts.map((c) => [c.run_id as string, Number(c.n)]));
      const [dup] = await query(`SELECT count(*) AS n FROM (SELECT ${key} AS k, run_id FROM ${table(name)} GROUP BY ALL HAVING count(*) > 1)`);
      duplicates += Number(dup?.n);
    }
    return { runs, duplicates };
  }

  /** The table prefixes hold exactly these published runs, each with all its rows, once. */
  async function expectPublished(...runIds: string[]): Promise<void> {
    const now = await tablesNow();
    const all = (n: number) => Object.fromEntries(runIds.map((id) => [id, n]));
    expect(now).toEqual({ runs: { risks: all(risks), 'board-items': all(items) }, duplicates: 0 });
  }

  /** The query of docs/downstream.md, "The newest run of each day", in DuckDB. */
  async function newestRunOfEachDay(): Promise<{ dt: string; run_id: string; n: number }[]> {
    const rows = await query(`
      WITH risks AS (SELECT * FROM ${table('risks')}),
      latest AS (SELECT dt, max_by(run_id, exported_at) AS run_id FROM ${table('runs')} WHERE table_name = 'risks' GROUP BY dt)
      SELECT r.dt::VARCHAR AS dt, r.run_id, count(*) AS n FROM risks r JOIN latest USING (dt, run_id) GROUP BY ALL ORDER BY dt`);
    return rows.map((r) => ({ dt: r.dt as string, run_id: r.run_id as string, n: Number(r.n) }));
  }

  const staged = (runId: string) => new LocalDirectoryStorage(root).listKeys(`_staging/${REPORT}/run=${runId}/`);

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'tables-publish-'));
    definition = parseReportDefinition({ name: REPORT, timeZone: 'Europe/Berlin', formats: ['csv', 'parquet'], datasets: { risks: {}, boardItems: {} } });
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
    // A published run the day before: the tables have files before the trials begin.
    const base = await run('base', T0 - 24 * HOUR);
    risks = base.manifest.summary.rows.risks!;
    items = base.manifest.summary.rows['board-items']!;
    expect(risks).toBeGreaterThan(0);
    expect(items).toBeGreaterThan(0);
  }, 60_000);
  afterAll(async () => {
    duck?.closeSync();
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('an attempt frozen after staging its tables, taken over, resumed and killed: only the published run, at every step', async () => {
    await expectPublished('base');
    const frozen = gate();
    const resume = gate();
    const died = gate();
    let resumed = false;
    // Frozen once every table file is staged (about to store its manifest): in flight, nothing published.
    const stale = run('takeover', T0, async (point) => {
      if (resumed) {
        died.open();
        return killed();
      }
      if (point !== 'manifest') return;
      frozen.open();
      await resume.promise;
      resumed = true;
    });
    void stale.catch(() => undefined);
    await frozen.promise;
    expect(await staged('takeover')).toEqual([
      `_staging/${REPORT}/run=takeover/board-items.parquet`,
      `_staging/${REPORT}/run=takeover/risk-custom-fields.parquet`,
      `_staging/${REPORT}/run=takeover/risks.parquet`,
      `_staging/${REPORT}/run=takeover/runs.parquet`,
    ]);
    await expectPublished('base');

    // Another attempt of the same run id, ten minutes later by its clock, takes the run over and publishes.
    const winner = await run('takeover', T0 + 10 * 60_000);
    expect(winner.written).toBe(true);
    expect(winner.manifest.tables?.map((t) => t.path)).toEqual([
      'tables/risks/dt=2026-11-23/run=takeover/part-00000.parquet',
      'tables/risk-custom-fields/dt=2026-11-23/run=takeover/part-00000.parquet',
      'tables/board-items/dt=2026-11-23/run=takeover/part-00000.parquet',
      'tables/runs/dt=2026-11-23/run=takeover/part-00000.parquet',
    ]);
    await expectPublished('base', 'takeover');
    expect(await staged('takeover')).toEqual([]);

    // The frozen attempt resumes, stores its manifest (claimed before it froze) and is killed at its
    // next step: a manifest no ledger entry names is left in its run folder, nothing in the tables.
    resume.open();
    await died.promise;
    await expectPublished('base', 'takeover');
    expect(await staged('takeover')).toEqual([]);
    expect(await newestRunOfEachDay()).toEqual([
      { dt: '2026-11-22', run_id: 'base', n: risks },
      { dt: '2026-11-23', run_id: 'takeover', n: risks },
    ]);
  });

  it('an attempt killed between two copies into the tables: the next attempt finishes them with the same keys', async () => {
    const at = T0 + HOUR;
    const frozen = gate();
    let copies = 0;
    // Dies right before its second copy: the first table is in place, the second is not.
    const dead = run('mid-copy', at, async (point) => {
      if (point !== 'publish' || ++copies !== 2) return;
      frozen.open();
      return killed();
    });
    void dead.catch(() => undefined);
    await frozen.promise;
    const now = await tablesNow();
    expect(now).toEqual({ runs: { risks: { base: risks, takeover: risks, 'mid-copy': risks }, 'board-items': { base: items, takeover: items } }, duplicates: 0 });

    const next = await run('mid-copy', at + 10 * 60_000);
    // It exported nothing again: it copied what the chosen manifest names and completed the run.
    expect(next.written).toBe(false);
    expect(next.manifestKey).toBe(`${REPORT}/dt=2026-11-23/run=mid-copy/manifest.json`);
    await expectPublished('base', 'takeover', 'mid-copy');
    expect(await staged('mid-copy')).toEqual([]);
    // A third attempt finds the run complete.
    expect((await run('mid-copy', at + 20 * 60_000)).written).toBe(false);
    await expectPublished('base', 'takeover', 'mid-copy');
  });

  it('an attempt killed on its last retry: nothing of it in the tables, its staging left for the lifecycle rule', async () => {
    const frozen = gate();
    let result: ExportResult | undefined;
    const dead = run('last-retry', T0 + 2 * HOUR, async (point) => {
      if (point !== 'manifest') return;
      frozen.open();
      return killed();
    });
    void dead.then((r) => (result = r), () => undefined);
    await frozen.promise;
    expect(result).toBeUndefined();
    await expectPublished('base', 'takeover', 'mid-copy');
    // risks, its custom fields as rows, board items, and its row of the runs table.
    expect(await staged('last-retry')).toHaveLength(4);
    expect(await newestRunOfEachDay()).toEqual([
      { dt: '2026-11-22', run_id: 'base', n: risks },
      { dt: '2026-11-23', run_id: 'mid-copy', n: risks },
    ]);
  });
});
