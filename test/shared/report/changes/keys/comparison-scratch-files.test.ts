import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../../../../shared/core/errors';
import { LocalLedger } from '../../../../../shared/ledger/local-ledger';
import { SCRATCH_PREFIX } from '../../../../../shared/report/changes/keys/spilled-key-prints';
import { parseReportDefinition, type ReportDefinitionInput } from '../../../../../shared/report/definition/definition';
import { runOf } from '../../../../support/run-builder';
import { LocalDirectoryStorage } from '../../../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../../../simulator/index';
import { makeTempDir, type TempDir } from '../../../../support/temp-dir';

const BASE: ReportDefinitionInput = { name: 'weekly', timeZone: 'UTC', datasets: { risks: {}, boardItems: {} } };

/** Fails every read of the risks snapshot after the first `reads` (1: the second pass fails). */
function failingAfter(reads: number): typeof LocalDirectoryStorage {
  let seen = 0;
  return class extends LocalDirectoryStorage {
    override async readObject(key: string) {
      if (key.endsWith('snapshots/risks.ndjson.gz') && ++seen > reads) {
        throw new StorageError('could not read the snapshot: injected: the connection was reset');
      }
      return super.readObject(key);
    }
  };
}

describe("the comparison's scratch files", () => {
  let sim: RunningSimulator;
  let temp: TempDir;
  let tmpdirBefore: string | undefined;
  /** Where the comparisons make their scratch directories: a directory of this test's own. */
  let scratchRoot: string;

  const run = (at: string, runId: string, storage = new LocalDirectoryStorage(temp.path('reports'))) =>
    runOf(parseReportDefinition(BASE))
      .withStorage(storage)
      .withLedger(new LocalLedger(temp.path('ledger')))
      .against(sim)
      .at(at)
      .withRunId(runId)
      .withTrigger('scheduled')
      .export();
  const scratchDirs = () => readdirSync(scratchRoot).filter((name) => name.startsWith(SCRATCH_PREFIX));

  beforeEach(async () => {
    sim = await startSimulator({ tenant: 'tiny', vocabulary: 'contract' });
    temp = makeTempDir('comparison-scratch');
    scratchRoot = temp.path('tmp');
    mkdirSync(scratchRoot);
    tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = scratchRoot;
  });
  afterEach(async () => {
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    await sim.close();
    temp.remove();
  });

  it('leaves none behind after a compared run', async () => {
    await run('2026-11-16T06:00:00Z', 'r1');
    const second = await run('2026-11-17T06:00:00Z', 'r2');
    expect(second.changes.tables.filter((t) => t.compared).map((t) => t.table)).toEqual(['risks', 'board-items']);
    expect(scratchDirs()).toEqual([]);
  });

  it("leaves none behind when the baseline's second read fails (the table is not compared)", async () => {
    const root = temp.path('reports');
    await run('2026-11-16T06:00:00Z', 'r1');
    const risk = sim.tenant.risks(sim.tenant.registers[0]!.id)[0]!;
    sim.advance({ date: new Date('2026-11-17T00:00:00Z'), risks: [{ id: risk.id, impact: risk.impact === 'High' ? 'Low' : 'High' }] });
    const Failing = failingAfter(1);
    const second = await run('2026-11-17T06:00:00Z', 'r2', new Failing(root));
    expect(second.changes.tables.find((t) => t.table === 'risks')).toMatchObject({ compared: false, note: expect.stringMatching(/could not be read again/) });
    expect(scratchDirs()).toEqual([]);
  });

  it('leaves none behind when the export fails while a compared table streams', async () => {
    await run('2026-11-16T06:00:00Z', 'r1');
    sim.injectFault({ status: 400, times: 100, match: (r) => r.path.endsWith('/items') });
    await expect(run('2026-11-17T06:00:00Z', 'r2')).rejects.toThrow();
    expect(scratchDirs()).toEqual([]);
  });

  it('compares without them failing the export: a scratch directory that cannot be made is a note', async () => {
    await run('2026-11-16T06:00:00Z', 'r1');
    process.env.TMPDIR = join(scratchRoot, 'missing');
    const second = await run('2026-11-17T06:00:00Z', 'r2');
    expect(second.written).toBe(true);
    expect(second.changes.tables.find((t) => t.table === 'risks')).toMatchObject({
      compared: false,
      note: expect.stringMatching(/^Risks were not compared: the comparison's scratch file could not be made \(.*ENOENT/),
    });
  });
});
