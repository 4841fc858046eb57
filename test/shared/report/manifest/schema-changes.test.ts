import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFilesDetail } from '../../../../shared/job/stages/table-event';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import { schemaOf } from '../../../../shared/report/manifest/table-schemas';
import type { TableSchema } from '../../../../shared/table/schema';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';

const definition = parseReportDefinition({
  name: 'acme-weekly',
  datasets: { risks: {}, okrs: {} },
  formats: ['parquet'],
});

describe('schema changes between runs (manifest and ReportExported detail)', () => {
  let sim: RunningSimulator;
  let root: string;
  const run = (runId: string) =>
    runOf(definition).in(root).against(sim).at('2026-11-23T06:00:00Z').withRunId(runId).export();
  const schemaFile = (table: string) => join(root, 'acme-weekly/tables', table, '_schema.json');

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'schema-changes-'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('reports no change on the first run and when the published schema is the same', async () => {
    const first = await run('run-1');
    expect(first.manifest.schemaChanges).toEqual([]);
    expect(first.manifest.files).toEqual([]);
    const second = await run('run-2');
    expect(tableFilesDetail(second.manifest)).toMatchObject({ schemaChanges: { minor: [], breaking: [] } });
    expect(tableFilesDetail(second.manifest).tables?.map((t) => [t.table, t.schemaVersion])).toEqual([
      ['risks', '1.3'], ['risk-custom-fields', '1.0'], ['strategic-themes', '1.4'], ['okrs', '1.3'], ['runs', '1.0'],
    ]);
  });

  it('names a minor change (columns added) and a breaking change (a column removed or retyped) by kind', async () => {
    // Pretend older schemas were published: risks without `mitigation` (so 1.1 added it: minor) and
    // okrs with `level` as a string (so the current version retyped it: breaking).
    const risks = schemaOf('risks')!;
    const olderRisks: TableSchema = { ...risks, version: '0.9', columns: risks.columns.filter((c) => c.name !== 'mitigation') };
    const okrs = schemaOf('okrs')!;
    const olderOkrs: TableSchema = {
      ...okrs, version: '0.3', columns: okrs.columns.map((c) => (c.name === 'level' ? { ...c, type: 'string' as const } : c)),
    };
    await writeFile(schemaFile('risks'), JSON.stringify(olderRisks));
    await writeFile(schemaFile('okrs'), JSON.stringify(olderOkrs));

    const result = await run('run-3');
    expect(result.manifest.schemaChanges).toEqual([
      { table: 'risks', kind: 'minor', from: '0.9', to: '1.3', added: ['mitigation'], removed: [], retyped: [] },
      { table: 'okrs', kind: 'breaking', from: '0.3', to: '1.3', added: [], removed: [], retyped: ['level'] },
    ]);
    expect(tableFilesDetail(result.manifest).schemaChanges).toEqual({
      minor: [{ table: 'risks', from: '0.9', to: '1.3', columns: ['mitigation'] }],
      breaking: [{ table: 'okrs', from: '0.3', to: '1.3', columns: ['level'] }],
    });
    // The published schema is now the current one.
    expect(JSON.parse(await readFile(schemaFile('okrs'), 'utf8'))).toEqual(okrs);
  });
});
