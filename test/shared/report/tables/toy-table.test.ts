import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { ReportDefinitionError, ReportPlanError } from '../../../../shared/core/errors';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { inBatches, type Dataset, type DatasetEntry, type DatasetPlan, type PlanContext } from '../../../../shared/report/dataset/dataset';
import { parseReportDefinition, reportDefinitionSchemaFor, type ReportDefinition } from '../../../../shared/report/definition/definition';
import { idList } from '../../../../shared/report/dataset/definition-limits';
import { FORMATS } from '../../../../shared/report/manifest/formats';
import { deliveriesOf, sliceDefinition } from '../../../../shared/report/definition/slices';
import type { Manifest } from '../../../../shared/report/manifest/manifest';
import { selectAll, type Selectable } from '../../../../shared/report/dataset/selector-titles';
import { REGISTRY, type Registry } from '../../../../shared/report/registry';
import { runOf } from '../../../support/run-builder';
import { DATASETS } from '../../../../shared/report/tables/registry';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import type { Column, TableRow } from '../../../../shared/table/table';
import { testCredentials } from '../../../support/credentials';
import { readCsv } from '../../../support/read-output';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';

/**
 * A table added as docs/architecture.md says ("Where to add… a table"): one dataset entry, handed to
 * the run in a registry with one more entry, and nothing else edited. The definition schema of that
 * registry takes the entry's options (typed), a delivery narrows its selector through a filter field
 * only it offers, its plan resolves the selector (every unknown one with its path) and the run writes
 * its table. The toys are in hand: no request reaches the planning API.
 */

const SHELVES: readonly Selectable[] = [
  { id: 's1', key: 'A', title: 'Attic' },
  { id: 's2', key: 'B', title: 'Basement' },
  { id: 's3', key: 'C', title: 'Cellar' },
];
const TOYS = [
  { shelf: 's1', name: 'kite', size: 3 },
  { shelf: 's2', name: 'drum', size: 5 },
  { shelf: 's2', name: 'yo-yo', size: 1 },
  { shelf: 's3', name: 'train', size: 8 },
];

/** `datasets.toys` in a definition. */
const TOY_OPTIONS = z.strictObject({ shelves: idList('shelf key, id or title') });
type ToyOptions = z.output<typeof TOY_OPTIONS>;

const TOY_COLUMNS: readonly Column[] = [
  { key: 'shelf', type: 'text', description: 'Key of the shelf', label: 'Shelf' },
  { key: 'toy', type: 'text', description: 'Name of the toy', label: 'Toy' },
  { key: 'size', type: 'integer', description: 'How big it is', label: 'Size' },
];

function toysDataset(shelves: readonly Selectable[]): Dataset {
  const keys = new Map(shelves.map((s) => [s.id, s.key ?? s.id]));
  const rows: TableRow[] = TOYS.filter((t) => keys.has(t.shelf)).map((t) => ({ values: [keys.get(t.shelf)!, t.name, t.size] }));
  return {
    name: 'toys',
    tables: async function* () {
      yield { table: { name: 'toy-things', columns: TOY_COLUMNS }, batches: inBatches(rows) };
    },
    resolvedSelectors: () => ({ shelves: shelves.map((s) => s.key) }),
    summary: () => [],
    figures: () => ({}),
  };
}

function planToys(ctx: PlanContext): Promise<DatasetPlan> {
  // The run's definition is typed by the production registry; the toy registry's schema put the toy's options there.
  const named = (ctx.definition.datasets as { readonly toys?: ToyOptions }).toys?.shelves;
  const { records, issues } = named ? selectAll(SHELVES, named, 'datasets.toys.shelves', { noun: 'shelf', keyed: true }) : { records: [...SHELVES], issues: [] };
  return Promise.resolve({
    issues,
    reads: [{ noun: 'shelf', records }],
    estimate: { requests: 0, exact: true, how: 'none: the toys are in hand' },
    create: () => toysDataset(records),
  });
}

const TOY_DATASET: DatasetEntry<'toys', typeof TOY_OPTIONS, 'shelves'> = {
  name: 'toys',
  options: TOY_OPTIONS,
  selectors: ['shelves'],
  slicedBy: { shelves: 'shelves' },
  // Reads nothing of the API; an entry names the group that would serve it.
  apiGroup: 'risk',
  plan: planToys,
  tables: [{ name: 'toy-things', title: 'Toy things', contract: { version: '1.0', columns: TOY_COLUMNS }, docs: { intro: 'One row per toy on the selected shelves.' } }],
};

const WITH_TOYS = [...DATASETS, TOY_DATASET] as const;
const TOY_REGISTRY: Registry = { ...REGISTRY, datasets: WITH_TOYS };
const toySchema = reportDefinitionSchemaFor({ datasets: WITH_TOYS, formats: FORMATS });

const PLAYROOM = {
  name: 'playroom',
  datasets: { toys: { shelves: ['A', 'Basement'] } },
  formats: ['csv'],
  deliveries: [
    { name: 'attic', filter: { shelves: ['Attic'] } },
    { name: 'downstairs', filter: { shelves: ['B', 'C'] } },
  ],
};

const issuesOf = (input: unknown) => toySchema.safeParse(input).error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));

describe('a toy table added through a registry alone', () => {
  let temp: TempDir;
  const requests: string[] = [];
  // Every request would be an error: the toys are in hand.
  const refusingFetch: typeof fetch = (input) => {
    requests.push(input instanceof Request ? input.url : input.toString());
    return Promise.reject(new Error('the toy dataset asked the planning API'));
  };
  const credentials = { getCredentials: () => Promise.resolve(testCredentials('toy-key')) };
  const now = () => new Date('2026-11-23T06:00:00Z');
  /** A run of the toy registry whose planning API refuses every request: the toys need none. */
  const toyRun = (definition: ReportDefinition) => runOf(definition).withCredentials(credentials).withContext({ registry: TOY_REGISTRY }).withPlanning({ fetch: refusingFetch }).at(now);

  beforeAll(() => {
    temp = makeTempDir('toy-table');
  });
  afterAll(() => temp.remove());

  it('is selectable in a definition of its registry, with typed options, and unknown to the production one', () => {
    const parsed = toySchema.parse(PLAYROOM);
    expect(parsed.datasets.toys).toEqual({ shelves: ['A', 'Basement'] });
    expectTypeOf(parsed.datasets.toys).toEqualTypeOf<ToyOptions | undefined>();
    expectTypeOf(parsed.datasets.risks).toEqualTypeOf<{ registers?: string[] | undefined; ownerField?: string | undefined } | undefined>();
    expect(parsed.deliveries?.map((d) => d.filter)).toEqual([{ shelves: ['Attic'] }, { shelves: ['B', 'C'] }]);

    expect(issuesOf({ ...PLAYROOM, datasets: { toys: { shelvez: ['A'] } } })).toEqual([{ path: 'datasets.toys', message: expect.stringContaining('shelvez') }]);
    expect(issuesOf({ ...PLAYROOM, datasets: { toys: { shelves: [] } } })).toEqual([
      { path: 'datasets.toys.shelves', message: 'list at least one shelf key, id or title, or leave the selector out to export all visible ones' },
    ]);
    expect(issuesOf({ ...PLAYROOM, datasets: {} })).toEqual([
      { path: 'datasets', message: 'choose at least one dataset: risks, okrs, piObjectives, boardItems or toys' },
    ]);
    // A delivery's filter fields are those some dataset offers: the toy's `shelves` beside the production ones.
    expect(issuesOf({ ...PLAYROOM, deliveries: [{ name: 'x', filter: { drawers: ['1'] } }] })).toEqual([
      { path: 'deliveries.0.filter', message: expect.stringContaining('drawers') },
    ]);

    const refused = (() => {
      try {
        return parseReportDefinition(PLAYROOM);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ReportDefinitionError);
    expect((refused as ReportDefinitionError).issues).toEqual([
      { path: 'datasets', message: 'unknown field "toys": check the spelling; the fields here are risks, okrs, piObjectives and boardItems' },
      { path: 'datasets', message: 'choose at least one dataset: risks, okrs, piObjectives or boardItems' },
      { path: 'deliveries.0.filter', message: 'unknown field "shelves": check the spelling; the fields here are boards, collections, registers and themes' },
      { path: 'deliveries.1.filter', message: 'unknown field "shelves": check the spelling; the fields here are boards, collections, registers and themes' },
    ]);
  });

  it("is sliced by a delivery's filter, as its entry says", () => {
    const [attic, downstairs] = deliveriesOf(PLAYROOM);
    expect(sliceDefinition(PLAYROOM, attic!, WITH_TOYS)).toMatchObject({ name: 'playroom--attic', datasets: { toys: { shelves: ['Attic'] } } });
    expect(sliceDefinition(PLAYROOM, downstairs!, WITH_TOYS).datasets).toEqual({ toys: { shelves: ['B', 'C'] } });
    // The production registry has no entry to ask: the toy's selector stays the report's.
    expect(sliceDefinition(PLAYROOM, attic!).datasets).toEqual({ toys: { shelves: ['A', 'Basement'] } });
  });

  it('is planned: its selector resolved, every unknown one refused with its path before anything is written', async () => {
    const wrong = toySchema.parse({ ...PLAYROOM, datasets: { toys: { shelves: ['A', 'Loft', 'Garage'] } } });
    const where = { storage: new LocalDirectoryStorage(temp.root), ledger: new LocalLedger(temp.path('.ledger')) };
    const error = await toyRun(wrong).withBackend(where).plan().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportPlanError);
    expect((error as ReportPlanError).issues.map((i) => i.path)).toEqual(['datasets.toys.shelves[1]', 'datasets.toys.shelves[2]']);

    const { plan } = await toyRun(toySchema.parse(PLAYROOM)).withBackend(where).plan();
    expect(plan.datasets.map((d) => [d.name, d.plan.reads.map((r) => [r.noun, r.records.map((s) => s.title)])])).toEqual([
      ['toys', [['shelf', ['Attic', 'Basement']]]],
    ]);
    expect(requests).toEqual([]);
  });

  it("writes a delivery's slice: its CSV holds the toys of the slice's shelves", async () => {
    const definition = toySchema.parse(sliceDefinition(PLAYROOM, deliveriesOf(PLAYROOM)[1]!, WITH_TOYS));
    const result = await toyRun(definition)
      .withStorage(new LocalDirectoryStorage(temp.root))
      .withLedger(new LocalLedger(temp.path('.ledger')))
      .withRunId('run-1')
      .export();

    const folder = join(temp.root, result.runFolder);
    const csv = await readCsv(join(folder, 'toy-things.csv'));
    expect(csv.header).toEqual(['shelf', 'toy', 'size']);
    expect(csv.rows).toEqual([['B', 'drum', '5'], ['B', 'yo-yo', '1'], ['C', 'train', '8']]);
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.report).toBe('playroom--downstairs');
    expect(manifest.summary.rows).toEqual({ 'toy-things': 3 });
    expect(manifest.files.map((f) => f.path)).toEqual(['toy-things.csv', 'changes.csv']);
    expect(requests).toEqual([]);
  });
});
