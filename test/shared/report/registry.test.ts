import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildReportEmail } from '../../../shared/messages/report-email';
import { runFiles } from '../../../shared/http/run-link';
import { renderRunPage } from '../../../shared/http/run-page';
import { inBatches, type DatasetEntry } from '../../../shared/report/dataset/dataset';
import { parseReportDefinition, reportDefinitionSchema, type ReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import { FORMATS, tableLabel, type ReportFormat } from '../../../shared/report/manifest/formats';
import { manifestSchema } from '../../../shared/report/manifest/manifest';
import { fileEntry, type OutputFactory } from '../../../shared/report/outputs/output';
import { REGISTRY, type Registry } from '../../../shared/report/registry';
import type { ExportResult } from '../../../shared/report/run/result';
import { DATASETS } from '../../../shared/report/tables/registry';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import type { Column, TableRow } from '../../../shared/table/table';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { readCsv, readWorkbook } from '../../support/read-output';

/**
 * A table and a format added through the registries alone: one entry each, handed to the run as a
 * registry with one more entry (the production lists stay as they are). The run, its manifest, its
 * e-mail's file list and its run page's pick them up without a change anywhere else.
 */

const TOY_COLUMNS: readonly Column[] = [
  { key: 'id', type: 'text', description: 'Toy id', label: 'Toy' },
  { key: 'size', type: 'integer', description: 'How big', label: 'Size' },
];
const TOY_ROWS: TableRow[] = [{ values: ['t1', 3] }, { values: ['t2', 5] }];

const TOY_DATASET: DatasetEntry = {
  name: 'toys',
  options: z.strictObject({}),
  selectors: [],
  // Reads nothing of the API; an entry names the group that would serve it.
  apiGroup: 'risk',
  // Nothing to resolve: its plan lists nothing and only makes the dataset.
  plan: () =>
    Promise.resolve({
      issues: [],
      reads: [],
      estimate: { requests: 0, exact: true, how: 'none: the toys are in hand' },
      create: () => ({
        name: 'toys',
        tables: async function* () {
          yield { table: { name: 'toy-things', columns: TOY_COLUMNS }, batches: inBatches(TOY_ROWS) };
        },
        resolvedSelectors: () => ({}),
        summary: () => [],
        figures: () => ({}),
      }),
    }),
  tables: [{ name: 'toy-things', title: 'Toy things', contract: { version: '1.0', columns: TOY_COLUMNS }, docs: { intro: 'One row per toy.' } }],
};

/** One `<table>.toy` file per table: its rows as `value|value` lines. */
const TOY_FORMAT: ReportFormat = {
  name: 'toy',
  contentType: 'text/x-toy',
  kind: 'Toy',
  listed: 'files',
  label: tableLabel,
};

const toyOutput: OutputFactory = (_run, { writer }) => {
  const uploads = new Map<string, Awaited<ReturnType<typeof writer.openUpload>>>();
  return Promise.resolve({
    async openTable(table) {
      const upload = await writer.openUpload(`${writer.runFolder}/${table.name}.toy`, { contentType: TOY_FORMAT.contentType });
      uploads.set(table.name, upload);
      return {
        writeRow: (row) => void upload.stream.write(`${row.values.map(String).join('|')}\n`),
        close: () => new Promise<number>((resolve) => upload.stream.end(() => resolve(0))),
      };
    },
    async finishTable(table, rows) {
      const object = await writer.stored(uploads.get(table)!, rows);
      return { files: [fileEntry(object, writer.runFolder, TOY_FORMAT, { [table]: rows })] };
    },
    finishRun: () => Promise.resolve({}),
  });
};

const TOY_REGISTRY: Registry = {
  datasets: [...REGISTRY.datasets, TOY_DATASET],
  formats: [...REGISTRY.formats, TOY_FORMAT],
  outputs: { ...REGISTRY.outputs, toy: [toyOutput] },
};

describe('a toy table and a toy format, added through the registries', () => {
  let sim: RunningSimulator;
  let root: string;
  let definition: ReportDefinition & { email: NonNullable<ReportDefinition['email']> };
  let result: ExportResult;
  const now = new Date('2026-11-23T06:00:00Z');

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo' });
    root = await mkdtemp(join(tmpdir(), 'registry-'));
    const parsed = parseReportDefinition({ name: 'toy-weekly', datasets: { risks: {} }, formats: ['xlsx', 'csv'], email: { to: ['pm@example.com'] } });
    // The definition schema's datasets and formats are the production registry's: the toys join the parsed definition.
    definition = { ...parsed, datasets: { ...parsed.datasets, toys: {} }, formats: [...parsed.formats, 'toy'] } as typeof definition;
    result = await runOf(definition).in(root).against(sim).at(now).withRunId('run-1').withContext({ registry: TOY_REGISTRY }).export();
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('exports the toy table in every format, the toy format after the registry\'s own, and lists both in the manifest', async () => {
    const folder = join(root, result.runFolder);
    const stored = manifestSchema.safeParse(JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')));
    // The production manifest schema knows only the registry's formats: the toy's file is refused there.
    expect(stored.success).toBe(false);
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as ExportResult['manifest'];
    expect(manifest.summary.rows).toEqual({ risks: expect.any(Number), 'risk-custom-fields': expect.any(Number), 'toy-things': 2 });
    expect(manifest.files.map((f) => [f.path, f.format])).toEqual([
      ['toy-weekly.xlsx', 'xlsx'], ['risks.csv', 'csv'], ['risk-custom-fields.csv', 'csv'], ['toy-things.csv', 'csv'], ['changes.csv', 'csv'],
      ['risks.toy', 'toy'], ['risk-custom-fields.toy', 'toy'], ['toy-things.toy', 'toy'],
    ]);
    expect(manifest.files.find((f) => f.path === 'toy-things.toy')).toMatchObject({ contentType: 'text/x-toy', rows: { 'toy-things': 2 } });
    expect(await readFile(join(folder, 'toy-things.toy'), 'utf8')).toBe('t1|3\nt2|5\n');
    expect((await readCsv(join(folder, 'toy-things.csv'))).rows).toEqual([['t1', '3'], ['t2', '5']]);
    // The sheet is named by the toy table's title in the registry.
    const sheet = (await readWorkbook(join(folder, 'toy-weekly.xlsx'))).getWorksheet('Toy things');
    expect(sheet?.getRow(2).values).toEqual([undefined, 't1', 3]);
  });

  it('names the toy files in the e-mail by the table\'s title and the format\'s kind', async () => {
    const email = await buildReportEmail(definition, result, {
      from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key: { id: 'k1', secret: 'b'.repeat(48) }, now,
      storage: new LocalDirectoryStorage(root), names: TOY_REGISTRY,
    });
    const others = email.text.slice(email.text.indexOf('Other files')).split('\n').filter((l) => l.startsWith('- ')).map((l) => l.replace(/, [\d.]+ (B|KiB)\):$/, ')'));
    expect(others).toEqual([
      '- Risks (CSV)', '- Risk custom fields (CSV)', '- Toy things (CSV)', '- Changes (CSV)', '- Risks (Toy)', '- Risk custom fields (Toy)', '- Toy things (Toy)',
    ]);
  });

  it('lists the toy files on the run page, the workbook first', () => {
    const files = runFiles(result.manifest, { title: 'Toy weekly', timeZone: 'UTC', href: (path) => `t/download?file=${path}` }, TOY_REGISTRY);
    const page = renderRunPage({ state: 'done', exportId: 'e1', title: 'Toy weekly', finishedAt: now.toISOString(), timeZone: 'UTC', fresh: true, figures: [], files }, 't').body;
    // The label's text (its size sits in a span that keeps number and unit together), size left out.
    const items = [...page.matchAll(/<li><a[^>]*title="([^"]+)">(.*?)<\/a><\/li>/g)].map((m) => [m[1], m[2]!.replace(/<[^>]+>/g, '').replace(/, [\d.]+ (B|KiB)\)$/, ')')]);
    expect(items).toEqual([
      ['Toy weekly – 2026-11-23.xlsx', expect.stringMatching(/^Download the workbook/)],
      ['Toy weekly – Risks – 2026-11-23.csv', 'Risks (CSV)'],
      ['Toy weekly – Risk custom fields – 2026-11-23.csv', 'Risk custom fields (CSV)'],
      ['Toy weekly – Toy things – 2026-11-23.csv', 'Toy things (CSV)'],
      ['Toy weekly – Changes – 2026-11-23.csv', 'Changes (CSV)'],
      ['Toy weekly – Risks – 2026-11-23.toy', 'Risks (Toy)'],
      ['Toy weekly – Risk custom fields – 2026-11-23.toy', 'Risk custom fields (Toy)'],
      ['Toy weekly – Toy things – 2026-11-23.toy', 'Toy things (Toy)'],
    ]);
  });

  it('leaves the production registries as they are, one dataset entry per dataset of the definition schema', () => {
    expect(DATASETS.map((d) => d.name)).toEqual(Object.keys(reportDefinitionSchema.shape.datasets.shape));
    expect(FORMATS.map((f) => f.name)).toEqual(['xlsx', 'pdf', 'csv', 'parquet']);
    expect(REGISTRY.datasets).toBe(DATASETS);
  });
});
