// @tier slow
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobDependencies } from '../../support/local-job';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { answersPrefix, assembleFanOut, fetchBoardAnswers, planFanOut, runFannedOutJob } from '../../../shared/fan-out/steps';
import { manifestSchema, type Manifest } from '../../../shared/report/manifest/manifest';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { readWorkbook } from '../../support/read-output';

/**
 * The fan-out path (plan → workers → assembler) against the single path, same tenant, same clock,
 * same run id: the files must not tell which path wrote them.
 */
const REPORT = {
  name: 'portfolio',
  title: 'Portfolio',
  datasets: { risks: {}, okrs: {}, piObjectives: { additionalColumns: true }, boardItems: {} },
  formats: ['xlsx', 'pdf', 'csv', 'parquet'],
};
const REQUEST = { report: 'portfolio', source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' };

let sim: RunningSimulator;
const dirs: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
});
afterAll(async () => {
  await sim.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function deps(): Promise<JobContext & { dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fan-out-'));
  dirs.push(dir);
  return { dir, ...localJobDependencies({ dir, sim, reports: { portfolio: REPORT }, clock: () => new Date('2026-11-23T06:00:20Z') }) };
}

async function manifestAt(dir: string, key: string): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await readFile(join(dir, key), 'utf8')));
}

const runFolderOf = (manifestKey: string) => manifestKey.slice(0, manifestKey.lastIndexOf('/'));

describe('the fan-out path', () => {
  it('writes the same bytes as the single path, workbook, PDF and Parquet included, and the same rows in each', async () => {
    const single = await deps();
    const one = await runJob(REQUEST, single);
    const fanned = await deps();
    const many = await runFannedOutJob(REQUEST, fanned, { boardsPerWorker: 1, workers: 3 });
    if (one.status !== 'succeeded' || many.status !== 'succeeded') throw new Error(`a path failed: ${JSON.stringify([one, many])}`);
    expect(many.chunks).toBe(4);
    expect(many.manifestKey).toBe(one.manifestKey);

    const [a, b] = [await manifestAt(single.dir, one.manifestKey), await manifestAt(fanned.dir, many.manifestKey)];
    expect(b.summary).toEqual(a.summary);
    expect(b.files.map((f) => [f.path, f.format])).toEqual(a.files.map((f) => [f.path, f.format]));
    // Every file is a function of the data and the run's clock: the same sha256 on both paths, the workbook included.
    expect(b.files.map((f) => [f.path, f.sha256])).toEqual(a.files.map((f) => [f.path, f.sha256]));
    expect((b.tables ?? []).map((t) => [t.path, t.sha256])).toEqual((a.tables ?? []).map((t) => [t.path, t.sha256]));
    const csvs = a.files.filter((f) => f.format === 'csv');
    expect(csvs.length).toBeGreaterThanOrEqual(6);
    for (const file of csvs) {
      const [x, y] = await Promise.all([single, fanned].map((d) => readFile(join(d.dir, runFolderOf(one.manifestKey), file.path))));
      expect(y!.equals(x!), file.path).toBe(true);
      expect(b.files.find((f) => f.path === file.path)?.sha256).toBe(file.sha256);
    }

    // Parquet, read by DuckDB: the same rows, table by table.
    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    try {
      for (const table of a.tables ?? []) {
        const rows = async (dir: string) =>
          (await duck.runAndReadAll(`SELECT * FROM read_parquet('${join(dir, 'portfolio', table.path)}') ORDER BY ALL`)).getRowObjectsJson();
        const [x, y] = [await rows(single.dir), await rows(fanned.dir)];
        expect(x.length, table.path).toBeGreaterThan(0);
        expect(y, table.path).toEqual(x);
      }
    } finally {
      duck.closeSync();
    }

    // The workbook: every sheet holds the same cell values.
    const xlsx = a.files.find((f) => f.format === 'xlsx')!.path;
    const [wa, wb] = await Promise.all([single, fanned].map((d) => readWorkbook(join(d.dir, runFolderOf(one.manifestKey), xlsx))));
    expect(wb!.worksheets.map((s) => s.name)).toEqual(wa!.worksheets.map((s) => s.name));
    for (const sheet of wa!.worksheets) {
      const values = (book: typeof wa) => book!.getWorksheet(sheet.name)!.getSheetValues().map((row) => JSON.stringify(row));
      expect(values(wb), sheet.name).toEqual(values(wa));
    }
  });

  it('leaves the board items to the workers: the assembler reads every item page from their answers', async () => {
    const d = await deps();
    const plan = await planFanOut({ ...REQUEST, scheduledTime: '2026-11-24T06:00:00Z' }, d, 2);
    expect(plan.chunks).toEqual([['1000', '1001'], ['1002', '1003']]);
    expect(plan.request.runId).toBe('s-20261124T060000Z');
    for (const chunk of plan.chunks) await fetchBoardAnswers(plan, chunk, d);

    const before = sim.requests.length;
    const outcome = await assembleFanOut(plan, d);
    expect(outcome.status).toBe('succeeded');
    const asked = sim.requests.slice(before).map((r) => r.path);
    expect(asked.filter((p) => p.endsWith('/items'))).toEqual([]);
    expect(outcome.answers.replayed).toBeGreaterThan(plan.chunks.length);
  });

  it('still completes when a worker failed: the assembler asks the API for that worker\'s boards', async () => {
    const d = await deps();
    const plan = await planFanOut({ ...REQUEST, scheduledTime: '2026-11-25T06:00:00Z' }, d, 2);
    await fetchBoardAnswers(plan, plan.chunks[0]!, d);
    const before = sim.requests.length;
    const outcome = await assembleFanOut(plan, d);
    expect(outcome.status).toBe('succeeded');
    const itemPages = sim.requests.slice(before).filter((r) => r.path.endsWith('/items'));
    expect(itemPages.length).toBeGreaterThan(0);
  });

  it('stores no answer that is not the API\'s: after a worker got malformed 200s, the assembler asks the API for them', async () => {
    const d = await deps();
    const plan = await planFanOut({ ...REQUEST, scheduledTime: '2026-11-26T06:00:00Z' }, d, 2);
    sim.injectFault({ status: 'malformed', times: 50, match: (r) => r.path.endsWith('/items') });
    try {
      await expect(fetchBoardAnswers(plan, plan.chunks[0]!, d)).rejects.toThrow(/listBoardItems: the response is not JSON/);
    } finally {
      sim.clearInjectedFaults();
    }
    await fetchBoardAnswers(plan, plan.chunks[1]!, d);
    const before = sim.requests.length;
    const outcome = await assembleFanOut(plan, d);
    if (outcome.status !== 'succeeded') throw new Error(`the assembler failed: ${JSON.stringify(outcome)}`);
    expect(sim.requests.slice(before).filter((r) => r.path.endsWith('/items')).length).toBeGreaterThan(0);
    expect((await manifestAt(d.dir, outcome.manifestKey)).summary.rows['board-items']).toBe(88);
  });

  // Before: a valid envelope holding a record the client refuses was stored before the client refused it,
  // and all three assembler attempts failed on the stored answer although the API answered well again.
  it('replays only answers a worker\'s client accepted: a refused record in a valid envelope is asked of the API again', async () => {
    const d = await deps();
    const plan = await planFanOut({ ...REQUEST, scheduledTime: '2026-11-28T06:00:00Z' }, d, 2);
    let poisoned = 0;
    const inner = d.planning.fetch ?? fetch;
    // A proxy in front of the simulator that spoils the first record of every item page once.
    const spoiling: typeof fetch = async (input, init) => {
      const response = await inner(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!new URL(url).pathname.endsWith('/items') || !response.ok) return response;
      const body = (await response.json()) as { data: Record<string, unknown>[] };
      if (body.data.length > 0) {
        body.data[0] = { ...body.data[0], id: null, summary: 42 };
        poisoned += 1;
      }
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
    const spoiled = { ...d, planning: { ...d.planning, fetch: spoiling } };
    await expect(fetchBoardAnswers(plan, plan.chunks[0]!, spoiled)).rejects.toThrow(/listBoardItems/);
    expect(poisoned).toBeGreaterThan(0);
    await fetchBoardAnswers(plan, plan.chunks[1]!, d);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const outcome = await assembleFanOut(plan, d);
      if (outcome.status !== 'succeeded') throw new Error(`assembler attempt ${attempt} failed: ${JSON.stringify(outcome)}`);
      // The first attempt asks the API again for the refused record; the second finds the run published and asks nothing.
      if (attempt === 1) expect(outcome.answers.fetched).toBeGreaterThan(0);
      else expect(outcome.answers.fetched).toBe(0);
      expect((await manifestAt(d.dir, outcome.manifestKey)).summary.rows['board-items']).toBe(88);
    }
  });

  it('asks the API again for a stored answer that is damaged or not the API\'s, instead of failing on it', async () => {
    const d = await deps();
    const plan = await planFanOut({ ...REQUEST, scheduledTime: '2026-11-27T06:00:00Z' }, d, 2);
    for (const chunk of plan.chunks) await fetchBoardAnswers(plan, chunk, d);
    const storage = d.storage;
    const keys = await storage.listKeys(answersPrefix(plan.request.report, plan.request.runId));
    expect(keys.length).toBeGreaterThan(4);
    // What an older worker stored from a proxy's page, and an object cut short.
    for (const [i, key] of keys.entries()) {
      const damaged = i % 2 === 0 ? JSON.stringify({ status: 200, headers: [], body: Buffer.from('<html>Back soon</html>').toString('base64') }) : '{"status":200,"hea';
      await storage.putObject(key, damaged, { contentType: 'application/json' });
    }
    const outcome = await assembleFanOut(plan, d);
    if (outcome.status !== 'succeeded') throw new Error(`the assembler failed: ${JSON.stringify(outcome)}`);
    expect(outcome.answers.replayed).toBe(0);
    expect(outcome.answers.fetched).toBeGreaterThanOrEqual(keys.length);
    expect((await manifestAt(d.dir, outcome.manifestKey)).summary.rows['board-items']).toBe(88);
  });
});
