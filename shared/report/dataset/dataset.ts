import type * as z from 'zod';
import type { Log } from '../../core/logger';
import type { ApiGroupName } from '../../planning-api/api-groups';
import { isoDateInZone } from './dates';
import type { PeopleDirectory } from './people';
import type { PlanningSource } from './planning-source';
import type { Column, SummarySection, TableDefinition, TableRow } from '../../table/table';
import type { ChangeRules } from './change-rules';
import type { NotExported } from './field-audit';
import type { PlanIssue } from './plan-issue';
import type { RunLists } from './run-lists';
import type { Selectable } from './selector-titles';
import type { AttentionItem } from '../summary/attention';
import type { OwnWork } from '../summary/own-work';
import { readerFormat, type ReaderFormat } from '../../core/format';
import type { Clock } from '../../core/clock';

/** Progress of a run, for a terminal or a log: datasets, pages (rows so far) and tables. */
export type ProgressEvent =
  | { readonly type: 'dataset'; readonly dataset: string }
  | { readonly type: 'rows'; readonly table: string; readonly rows: number }
  | { readonly type: 'table-done'; readonly table: string; readonly rows: number }
  | { readonly type: 'file-stored'; readonly path: string; readonly bytes: number };

/**
 * What the datasets read of a report's definition: the reader's locale and zone, the planning tool's
 * link templates, and each dataset its own options under `datasets.<name>` (datasetOptions). A narrow
 * type, so the tables below the definition never name it (the definition's schema is built from them).
 */
export interface DatasetDefinition {
  readonly locale: string;
  readonly timeZone: string;
  readonly links: {
    readonly extBBrowseUrl?: string | undefined;
    readonly riskUrl?: string | undefined;
    readonly okrUrl?: string | undefined;
    readonly piObjectiveUrl?: string | undefined;
  };
  readonly datasets: object;
}

/**
 * A dataset's own options in the definition, typed by the options schema of its entry: the
 * definition's `datasets` were parsed by a schema built from those entries (definition.ts), so what
 * stands under the dataset's name has that schema's output type.
 */
export function datasetOptions<O extends DatasetOptions>(definition: DatasetDefinition, name: string, _options: O): z.output<O> | undefined {
  return (definition.datasets as Readonly<Record<string, z.output<O> | undefined>>)[name];
}

export interface DatasetContext {
  readonly source: PlanningSource;
  readonly definition: DatasetDefinition;
  readonly log: Log;
  /** User ids to names, shared by the datasets of one run (see people.ts). */
  readonly people?: PeopleDirectory;
  /** Each person's own work, joined across the datasets of one run (summary/own-work.ts). */
  readonly ownWork?: OwnWork;
  /** The run's clock: "overdue" is measured against the run's calendar day. */
  readonly clock: Clock;
  /** How the run writes for its readers, when it switches between their languages (core/switchable-format.ts); else the definition's locale. */
  readonly format?: ReaderFormat | undefined;
}

/** How the run writes a number or a date into a reader's text (a Summary line, "Needs attention"): its locale and zone. */
export function readerFormatOf(ctx: DatasetContext): ReaderFormat {
  return ctx.format ?? readerFormat(ctx.definition.locale, ctx.definition.timeZone);
}

/** The run's calendar day in the report's time zone, at 00:00 UTC (how dates are carried, see table.ts). */
export function runDay(ctx: DatasetContext): Date {
  const now = ctx.clock();
  return new Date(`${isoDateInZone(now, ctx.definition.timeZone)}T00:00:00Z`);
}

/**
 * One table of a dataset: its columns (known before the first row) and its rows, streamed in
 * batches. A batch is what arrived together (a page of board items, a theme's OKR tree), so the
 * consumer pays one await per batch, not one per row: at millions of rows a promise per row is a
 * measurable share of the run's CPU. A batch is any iterable, so rows can be made as they are taken
 * (a page's rows are a generator over its features): a page's rows built into an array measured
 * slower than the awaits they save (docs/benchmarks.md, "Rows handed over a batch at a time").
 * A batch is taken whole before the next is asked for.
 */
export interface TableOutput {
  readonly table: TableDefinition;
  readonly batches: AsyncIterable<Iterable<TableRow>>;
}

/** Rows per batch when the rows are already in hand (the v1 lists, the PI objectives' trees). */
export const ROW_BATCH = 1_000;

/** Rows already in hand (a synchronous generator over fetched records), handed over `size` at a time. */
export async function* inBatches(rows: Iterable<TableRow>, size: number = ROW_BATCH): AsyncIterable<Iterable<TableRow>> {
  let batch: TableRow[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * A dataset yields its tables one after another; the caller consumes each table's rows completely
 * before asking for the next table (a workbook is written one sheet at a time). Figures for the
 * Summary sheet and the e-mail are collected while the rows stream and read after the last table.
 */
export interface Dataset {
  readonly name: string;
  /**
   * Starts fetching before the dataset's turn, within its own read-ahead bound, so a large dataset's
   * requests share the run's request budget with the datasets written before it instead of waiting
   * for them. What it fetched is what `tables()` then hands out; a failure surfaces there.
   */
  prefetch?(): void;
  /** Stops a prefetch that will not be consumed (the run failed before the dataset's turn). */
  stop?(): Promise<void>;
  tables(): AsyncIterable<TableOutput>;
  /** What the selectors resolved to (board, register and theme ids and titles), for the manifest. */
  resolvedSelectors(): Record<string, unknown>;
  summary(): SummarySection[];
  /** Every item its "Needs attention" rows count, in their order (the "Needs attention" sheet); none when absent. */
  attention?(): AttentionItem[];
  /** Machine-readable figures for the manifest and the e-mail. */
  figures(): Record<string, unknown>;
}


/** What a dataset will read, for people (the dry run): `3 risk registers: ENT "Enterprise risks", …`. */
export interface PlannedRecords {
  /** e.g. `risk register` */
  readonly noun: string;
  readonly records: readonly Selectable[];
}

/**
 * The requests a dataset's data takes beyond the list calls of the plan. Only some are known before
 * the data is read (a board's PI objectives come in one answer; its features a page at a time, as
 * many pages as it has features): then `requests` is the least it takes and `exact` is false.
 */
export interface RequestEstimate {
  readonly requests: number;
  readonly exact: boolean;
  /** How it is counted, for people: "objective groups, sprints and teams of each board". */
  readonly how: string;
}

/** What the plan of a dataset is made with: the definition and the run's list calls. */
export interface PlanContext {
  readonly definition: DatasetDefinition;
  readonly lists: RunLists;
  readonly log: Log;
}

/**
 * A dataset's part of the plan of a run (export-plan.ts): its selectors resolved with the list calls
 * alone, before any data is fetched, every problem with its path, and the dataset made from what was
 * resolved, so it never lists or resolves again.
 */
export interface DatasetPlan {
  readonly issues: readonly PlanIssue[];
  readonly reads: readonly PlannedRecords[];
  readonly estimate: RequestEstimate;
  /** Made only when the plan of the whole run holds (no issues in any dataset). */
  readonly create: (ctx: DatasetContext) => Dataset;
}

/**
 * A dataset's options under `datasets.<name>` in a definition: a strict object, so a misspelt key
 * ("boardz") is an error with its path, not a silently ignored selector that exports everything.
 */
export type DatasetOptions = z.ZodObject<z.core.$ZodLooseShape, z.core.$strict>;

/** The schema of a list of ids, keys or titles (`idList` in definition-limits.ts). */
export type SelectorSchema = z.ZodOptional<z.ZodArray<z.ZodString>>;

/** The names of a dataset's options. */
export type OptionName<Options extends DatasetOptions> = keyof Options['shape'] & string;

/** The names of a dataset's options that list ids, keys or titles: what a delivery's filter may replace. */
export type SelectorName<Options extends DatasetOptions> = {
  [K in OptionName<Options>]: Options['shape'][K] extends SelectorSchema ? K : never;
}[OptionName<Options>];

/**
 * How the fan-out (fan-out/steps.ts, docs/deploy.md "Past one Lambda") splits a dataset too large
 * for one function among its workers, each fetching a few of its units (the board items' boards).
 */
export interface FanOutHint<Options> {
  /** The ids of the units the dataset's plan resolved, in order: the workers take them a few at a time. */
  readonly split: (plan: DatasetPlan) => readonly string[];
  /** The dataset's options that read only `units`: one worker's part. */
  readonly part: (units: readonly string[]) => Options;
}

/**
 * A dataset in the tables registry (tables/registry.ts): what the definition calls it and what it
 * takes there, what narrows it, how a delivery slices it, what preflight and the fan-out need of it,
 * how it is planned and made for a run, and its tables. The definition schema's `datasets` and
 * deliveries' `filter`, sheet titles, contracts, change rules, selectors, the export order and
 * docs/tables.md all derive from these entries.
 *
 * `Name`, `Options` and `Filter` keep the parsed definition typed (definition.ts builds its schema
 * from the registry's entries): declare an entry as `DatasetEntry<'risks', typeof RISK_OPTIONS, 'registers'>`.
 */
export interface DatasetEntry<Name extends string = string, Options extends DatasetOptions = DatasetOptions, Filter extends string = string> {
  /** Its key under `datasets` in a definition (and the Dataset's name). */
  readonly name: Name;
  /** Its options in a definition, under `datasets.<name>` (a dataset is exported when they are there, `{}` at least). */
  readonly options: Options;
  /** Its selector fields: the ones an API caller may narrow (job/stages/resolve-definition.ts). */
  readonly selectors: readonly OptionName<Options>[];
  /**
   * How a delivery's `filter` narrows it (definition/slices.ts): each filter field and the selector it
   * replaces (`themes: 'strategicThemes'`). A filter field is checked like that selector (the first
   * dataset of the registry to offer it says how). Without it, a delivery exports the dataset whole.
   */
  readonly slicedBy?: { readonly [F in Filter]: SelectorName<Options> };
  /**
   * The planning API's group that serves its data (the discover probe asks each group): preflight
   * blocks a first e-mail when a report reads the dataset and the key may not read the group.
   */
  readonly apiGroup: ApiGroupName;
  /** Offered by the one dataset the fan-out splits among its workers (the board items). */
  readonly fanOut?: FanOutHint<z.output<Options>>;
  /** Its part of the run's plan, which makes the dataset. */
  readonly plan: (ctx: PlanContext) => Promise<DatasetPlan>;
  /** Its tables, in the order it writes them. */
  readonly tables: readonly TableEntry[];
}

export interface TableEntry {
  /** The file and machine name: `<name>.csv`, `tables/<name>/`, `schemas/<name>.json`. */
  readonly name: string;
  /**
   * For people: the worksheet's name (Excel allows 31 characters and no `[]:*?/\`), the table on the
   * Changes sheet, and the table's file in the e-mail and on the run page.
   */
  readonly title: string;
  /**
   * The published schema (schemas/<name>.json, docs/tables.md); bump `version` when the columns
   * change: MINOR for added columns, MAJOR for removed or retyped ones (table-schemas.test.ts checks it).
   */
  readonly contract: { readonly version: string; readonly columns: readonly Column[] };
  /** What runs compare (docs/changes.md); a table without rules is not compared. */
  readonly changes?: ChangeRules;
  /**
   * Served fields the table leaves out on purpose, by leaf path, each with why: the field audit lists
   * them with that reason in the manifest's `unexportedFields`, docs/tables.md under the table.
   */
  readonly notExported?: NotExported;
  /**
   * Its section of docs/tables.md: what a row is, a note after the columns, columns only some runs
   * write (the contract's columns after them are in every file), what each version added.
   */
  readonly docs: {
    readonly intro: string;
    readonly outro?: string;
    readonly optional?: { readonly when: string; readonly columns: readonly Column[] };
    readonly versions?: Readonly<Record<string, string>>;
  };
}
