import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../../../shared/report/dataset/dataset';
import type { ManifestFile } from '../../../../shared/report/manifest/manifest';
import { openOutputs } from '../../../../shared/report/outputs/index';
import type { FinishedRun, OutputContext, OutputFactory } from '../../../../shared/report/outputs/output';
import type { PlannedRun } from '../../../../shared/report/run/run';
import type { TableDefinition, TableRow, TableSink } from '../../../../shared/table/table';

const file = (path: string): ManifestFile => ({ path, format: 'csv', contentType: 'text/csv', bytes: 1, sha256: '0'.repeat(64), rows: {} });
const table: TableDefinition = { name: 'risks', columns: [{ key: 'id', type: 'text', description: 'Id' }] };
const run: FinishedRun = { summary: { title: 't', sections: [] }, attention: [], changes: {} as FinishedRun['changes'], snapshots: [], rows: { risks: 2 },
  record: { generatedAt: '2026-11-23T00:00:00.000Z', selectors: { requested: {}, resolved: {} }, figures: {} },
};

/** An output that records what it is asked, writes rows into `seen`, and lists one file per step. */
function recording(name: string, log: string[], seen: TableRow[] | undefined): OutputFactory {
  return () =>
    Promise.resolve({
      openTable: (t) => {
        log.push(`${name}.open(${t.name})`);
        const sink: TableSink = { writeRow: (row) => void seen?.push(row), close: () => Promise.resolve(seen?.length ?? 0) };
        return Promise.resolve(seen ? sink : undefined);
      },
      finishTable: (t, rows) => {
        log.push(`${name}.finishTable(${t}, ${rows})`);
        return Promise.resolve({ files: [file(`${name}-${t}`)] });
      },
      finishRun: (r) => {
        log.push(`${name}.finishRun(${r.rows.risks})`);
        return Promise.resolve({ files: [file(`${name}-run`)], stored: [{ key: `k/${name}`, bytes: 1, sha256: '0'.repeat(64) }], fields: { schemaChanges: [] } });
      },
    });
}

describe('openOutputs', () => {
  it('opens a sink of every output that writes per table, and lists files output by output in the order of the list', async () => {
    const log: string[] = [];
    const rowsA: TableRow[] = [];
    const skipped: OutputFactory = () => Promise.resolve(undefined);
    const outputs = await openOutputs({} as PlannedRun, {} as OutputContext, [recording('a', log, rowsA), skipped, recording('b', log, undefined)]);
    const sinks = await outputs.openTable(table, {} as Dataset);
    expect(sinks).toHaveLength(1);
    await sinks[0]!.writeRow({ values: ['r1'] });
    await outputs.finishTable('risks', 1);
    const entries = await outputs.finishRun(run);
    expect(rowsA).toEqual([{ values: ['r1'] }]);
    expect(log).toEqual(['a.open(risks)', 'b.open(risks)', 'a.finishTable(risks, 1)', 'b.finishTable(risks, 1)', 'a.finishRun(2)', 'b.finishRun(2)']);
    // a's files (per table, then at the end) come before any of b's, whenever they were written.
    expect(entries.files.map((f) => f.path)).toEqual(['a-risks', 'a-run', 'b-risks', 'b-run']);
    expect(entries.stored.map((f) => f.key)).toEqual(['k/a', 'k/b']);
    expect(entries.fields).toEqual({ schemaChanges: [] });
  });
});
