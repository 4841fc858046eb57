import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Log } from '../../../../shared/core/logger';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { csvObjects, readCsv } from '../../../support/read-output';

/**
 * Records the planning API sends more than once (simulator fault 'repeat': every record of an answer's
 * list twice) are written once, counted in the manifest and warned of in the log.
 */
const REPORT: ReportDefinitionInput = {
  name: 'repeats',
  datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
  formats: ['csv'],
};
const TABLES = ['risks', 'strategic-themes', 'okrs', 'pi-objectives', 'pi-objective-items', 'board-items'];

let sim: RunningSimulator;
const roots: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
});
beforeEach(() => {
  sim.clearInjectedFaults();
});
afterAll(async () => {
  await sim.close();
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

function recordingLog(): Log & { warnings: { message: string; extra: unknown }[] } {
  const warnings: { message: string; extra: unknown }[] = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, error: none, warn: (message: string, ...extra: unknown[]) => void warnings.push({ message, extra: extra[0] }) };
}

async function exported(input: ReportDefinitionInput, log: Log = recordingLog()): Promise<{ result: ExportResult; folder: string }> {
  const root = await mkdtemp(join(tmpdir(), 'repeated-records-'));
  roots.push(root);
  const result = await runOf(parseReportDefinition(input)).in(root).against(sim).at('2026-11-23T06:00:00Z').withRunId('run-1').withContext({ log }).export();
  return { result, folder: join(root, result.runFolder) };
}

const repeat = (times: number, match: (path: string) => boolean) => sim.injectFault({ status: 'repeat', times, match: (r) => match(r.path) });

describe('records the planning API sends twice', () => {
  it('are written once: every answer repeating its records gives the same files as a clean run, and the manifest counts what was dropped', async () => {
    const clean = await exported(REPORT);
    expect(clean.result.manifest.summary.duplicatesDropped).toBeUndefined();
    expect(clean.result.manifest.summary.rows['board-items']).toBe(88);

    repeat(1000, (path) => /\/(items|risk|objectives|key-results|objective-groups)$/.test(path));
    const log = recordingLog();
    const twice = await exported(REPORT, log);
    expect(twice.result.manifest.summary.rows).toEqual(clean.result.manifest.summary.rows);
    for (const table of TABLES) {
      const [a, b] = await Promise.all([clean, twice].map((run) => readFile(join(run.folder, `${table}.csv`))));
      expect(b!.equals(a!), table).toBe(true);
    }
    const ids = csvObjects(await readCsv(join(twice.folder, 'board-items.csv'))).map((r) => `${r.board_id} ${r.id}`);
    expect(new Set(ids).size).toBe(88);
    const rows = clean.result.manifest.summary.rows;
    expect(twice.result.manifest.summary.duplicatesDropped).toEqual({
      risks: rows.risks,
      'board-items': rows['board-items'],
      // Each level of the OKR tree repeated: the repeated group came with its objectives and their key results, and so on.
      okrs: expect.any(Number) as unknown,
      'pi-objectives': rows['pi-objectives'],
      'pi-objective-items': rows['pi-objective-items'],
    });
    expect(twice.result.manifest.summary.duplicatesDropped?.okrs).toBeGreaterThanOrEqual(rows.okrs!);
    expect(log.warnings.map((w) => w.extra)).toEqual(
      expect.arrayContaining(['risks', 'board-items', 'okrs', 'pi-objectives', 'pi-objective-items'].map((table) => expect.objectContaining({ table }) as unknown)),
    );
  });

  it('export a board or a register listed twice once: its objectives, items and risks are not doubled', async () => {
    const clean = await exported({ ...REPORT, name: 'lists' });
    repeat(1, (path) => path.endsWith('/boards'));
    repeat(1, (path) => path.endsWith('/riskregister'));
    const log = recordingLog();
    const twice = await exported({ ...REPORT, name: 'lists' }, log);
    expect(twice.result.manifest.summary.rows).toEqual(clean.result.manifest.summary.rows);
    expect(twice.result.manifest.summary.rows['pi-objectives']).toBeGreaterThan(0);
    for (const table of TABLES) {
      const [a, b] = await Promise.all([clean, twice].map((run) => readFile(join(run.folder, `${table}.csv`))));
      expect(b!.equals(a!), table).toBe(true);
    }
    // The run's plan asks the board list once for both datasets of boards: its four repeated boards are dropped once.
    expect(twice.result.manifest.summary.duplicatesDropped).toEqual({ boards: 4, registers: 2 });
    expect(twice.result.manifest.selectors.resolved).toEqual(clean.result.manifest.selectors.resolved);
    expect(log.warnings.map((w) => w.extra)).toEqual(expect.arrayContaining([{ table: 'boards', duplicatesDropped: 4 }, { table: 'registers', duplicatesDropped: 2 }]));
  });
});
