/**
 * The tables registry: every dataset a definition can name, with its tables, in export order. The
 * definition schema's `datasets` and deliveries' `filter` (definition.ts), how a delivery slices a
 * report (slices.ts), which API groups preflight asks of a report, what the fan-out splits, sheet
 * titles, the table contracts (schemas/, docs/tables.md), change rules, the selectors a caller may
 * narrow and the order runExport writes datasets in all derive from it. Adding a table is one file
 * that exports its DatasetEntry (see risks.ts) and one entry in DATASETS (docs/architecture.md,
 * "Where to add… a table"). Functions that derive from the list take it as an argument with DATASETS
 * as the default, so a test can run an export with one more entry.
 */
import type { DatasetEntry, DatasetPlan, TableEntry } from '../dataset/dataset';
import { BOARD_ITEMS_DATASET } from './board-items/board-items';
import { OKRS_DATASET } from './okrs/okrs';
import { PI_OBJECTIVES_DATASET } from './pi-objectives/pi-objectives';
import { RISKS_DATASET } from './risks/risks';

/** A tuple, not a list: each entry keeps its options' type, so the parsed definition's `datasets` are typed. */
export const DATASETS = [RISKS_DATASET, OKRS_DATASET, PI_OBJECTIVES_DATASET, BOARD_ITEMS_DATASET] as const;

/** Every table of the registry, in export order. */
export function tablesOf(datasets: readonly DatasetEntry[] = DATASETS): TableEntry[] {
  return datasets.flatMap((d) => d.tables);
}

export function tableEntry(table: string, datasets: readonly DatasetEntry[] = DATASETS): TableEntry | undefined {
  return tablesOf(datasets).find((t) => t.name === table);
}

export function datasetEntry(dataset: string, datasets: readonly DatasetEntry[] = DATASETS): DatasetEntry | undefined {
  return datasets.find((d) => d.name === dataset);
}

/** The datasets a definition names (its `datasets`, parsed or as written), in export order. */
export function datasetsOf(named: object, datasets: readonly DatasetEntry[] = DATASETS): DatasetEntry[] {
  return datasets.filter((d) => (named as Readonly<Record<string, unknown>>)[d.name] !== undefined);
}

/** The dataset the fan-out splits among its workers (the one entry with a `fanOut` hint), if any. */
function fanOutEntry(datasets: readonly DatasetEntry[]): (DatasetEntry & Required<Pick<DatasetEntry, 'fanOut'>>) | undefined {
  return datasets.find((d): d is DatasetEntry & Required<Pick<DatasetEntry, 'fanOut'>> => d.fanOut !== undefined);
}

/** The units the fan-out's workers split among themselves (board ids), from the run's plan; none when the report does not read that dataset. */
export function fanOutUnits(planned: readonly { readonly name: string; readonly plan: DatasetPlan }[], datasets: readonly DatasetEntry[] = DATASETS): string[] {
  const entry = fanOutEntry(datasets);
  const plan = planned.find((d) => d.name === entry?.name)?.plan;
  return entry && plan ? [...entry.fanOut.split(plan)] : [];
}

/**
 * One worker's definition: the split dataset alone, reading only `units`. Generic over the definition
 * (the registry sits below it): the result is the same definition with `datasets` replaced by one
 * entry of the registry, which the definition's schema (built from these entries) accepts.
 */
export function fanOutPart<D extends { readonly datasets: object }>(definition: D, units: readonly string[], datasets: readonly DatasetEntry[] = DATASETS): D {
  const entry = fanOutEntry(datasets);
  if (!entry) throw new Error('no dataset of the tables registry is split among fan-out workers');
  return { ...definition, datasets: { [entry.name]: entry.fanOut.part(units) } };
}
