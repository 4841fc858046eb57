import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import { plannedWrites } from '../../../../shared/report/run/planned-writes';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';

/** What the dry run says a run writes (plannedWrites) is what a run of the same definition writes. */
describe('plannedWrites', () => {
  let sim: RunningSimulator;
  let root: string;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'planned-writes-'));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), rm(root, { recursive: true, force: true })]);
  });

  it('names every key a run writes, each format\'s under it, and nothing more', async () => {
    const definition = parseReportDefinition({
      name: 'every-format',
      timeZone: 'Europe/Berlin',
      datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
      formats: ['xlsx', 'csv', 'parquet'],
    });
    // 23:30 UTC is the next day in Berlin: the run folder's date is the report's.
    const now = new Date('2026-11-23T23:30:00Z');
    await runOf(definition).in(root).against(sim).at(now).withRunId('planned').export();
    const written = (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1).split(sep).join('/'))
      .filter((key) => !key.startsWith('.ledger/'));

    const planned = plannedWrites(definition, { runId: 'planned', runDate: now });
    expect(planned.runFolder).toBe('every-format/dt=2026-11-24/run=planned');
    expect(planned.formats.map((f) => f.format)).toEqual(['xlsx', 'csv', 'parquet']);
    expect([...planned.formats.flatMap((f) => f.keys), ...planned.always].sort()).toEqual(written.sort());
  });

  it('lists only the formats the definition names', () => {
    const definition = parseReportDefinition({ name: 'csv-only', datasets: { risks: {} }, formats: ['csv'] });
    const planned = plannedWrites(definition, { runId: 'r', runDate: new Date('2026-11-23T06:00:00Z') });
    expect(planned).toEqual({
      runFolder: 'csv-only/dt=2026-11-23/run=r',
      formats: [{ format: 'csv', keys: ['csv-only/dt=2026-11-23/run=r/risks.csv', 'csv-only/dt=2026-11-23/run=r/risk-custom-fields.csv', 'csv-only/dt=2026-11-23/run=r/changes.csv'] }],
      always: ['csv-only/dt=2026-11-23/run=r/manifest.json', 'csv-only/dt=2026-11-23/run=r/snapshots/risks.ndjson.gz', 'csv-only/latest.json'],
    });
  });
});
