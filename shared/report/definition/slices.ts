import type { DatasetEntry } from '../dataset/dataset';
import { DATASETS } from '../tables/registry';
import { SLICE_SEPARATOR } from './definition';

/**
 * A report's deliveries as reports of their own (docs/reports.md): each slice is the report's
 * definition, as written, with the slice's name, title, recipients and channels, and the report's
 * selectors narrowed by the slice's filter (each dataset's entry says which filter field replaces
 * which of its selectors: `slicedBy`). A slice run is therefore an ordinary run over that part of
 * the data; its figures are those a separate report over the same part would show.
 */
type Raw = Readonly<Record<string, unknown>>;

const object = (value: unknown): Raw | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;

/** The deliveries a definition (as written) lists, or an empty list. */
export function deliveriesOf(definition: unknown): Raw[] {
  const list = object(definition)?.deliveries;
  return Array.isArray(list) ? (list as unknown[]).flatMap((d): Raw[] => { const o = object(d); return o ? [o] : []; }) : [];
}

/** The name of a slice's runs: `<report>--<delivery>`. */
export function sliceReportName(report: string, delivery: string): string {
  return `${report}${SLICE_SEPARATOR}${delivery}`;
}

/** The definition (as written) of one delivery of `base`; `datasets` is the tables registry's (a test adds one). */
export function sliceDefinition(base: unknown, delivery: Raw, datasets: readonly DatasetEntry[] = DATASETS): Raw {
  const { deliveries: _deliveries, email: _email, delivery: baseDelivery, ...rest } = object(base) ?? {};
  const name = String(rest.name);
  const filter = object(delivery.filter) ?? {};
  const when = object(baseDelivery)?.when;
  const ownDelivery = object(delivery.delivery);
  return {
    ...rest,
    name: sliceReportName(name, String(delivery.name)),
    title: typeof delivery.title === 'string' ? delivery.title : `${typeof rest.title === 'string' ? rest.title : name} — ${String(delivery.name)}`,
    datasets: narrowed(object(rest.datasets) ?? {}, filter, datasets),
    ...(delivery.email !== undefined && { email: delivery.email }),
    // The audience's own channels; the report's `when` holds unless the delivery says otherwise.
    ...(ownDelivery ? { delivery: ownDelivery } : when !== undefined && { delivery: { when } }),
  };
}

/** The report's datasets with the filter's selectors in place of the report's, as each entry's `slicedBy` says. */
function narrowed(named: Raw, filter: Raw, datasets: readonly DatasetEntry[]): Raw {
  const out: Record<string, unknown> = { ...named };
  for (const entry of datasets) {
    for (const [field, selector] of Object.entries(entry.slicedBy ?? {})) {
      const current = object(out[entry.name]);
      const ids = filter[field];
      if (current && Array.isArray(ids)) out[entry.name] = { ...current, [selector]: ids };
    }
  }
  return out;
}

/**
 * What runs under one name: a report (its own runs, and its on-demand exports when it has
 * deliveries) or one delivery of a report (its slice). Runs are stored under their name (the folder,
 * its `latest.json`, the ledger's leases and messages), so two owners of one name would write into
 * each other's folder: `port--b` is both the report so named and the delivery `b` of `port`.
 */
export interface RunNameOwner {
  /** The name its runs go under. */
  readonly run: string;
  /** The report that defines it. */
  readonly report: string;
  /** The delivery, for a slice. */
  readonly delivery?: string;
}

export function describeOwner(owner: RunNameOwner): string {
  return owner.delivery === undefined ? `report "${owner.report}"` : `delivery "${owner.delivery}" of report "${owner.report}"`;
}

/** The names a definition's runs go under: its own, then each delivery's slice. */
export function runNamesOf(definition: unknown): RunNameOwner[] {
  const name = object(definition)?.name;
  if (typeof name !== 'string') return [];
  const slices = deliveriesOf(definition).flatMap((d) =>
    typeof d.name === 'string' ? [{ run: sliceReportName(name, d.name), report: name, delivery: d.name }] : [],
  );
  return [{ run: name, report: name }, ...slices];
}

/** The sentence that refuses two owners of one run name, naming both. */
export function runNameCollision(first: RunNameOwner & { readonly origin?: string }, second: RunNameOwner & { readonly origin?: string }): string {
  const where = (o: { origin?: string }) => (o.origin === undefined ? '' : ` (${o.origin})`);
  return `${describeOwner(first)}${where(first)} and ${describeOwner(second)}${where(second)} would both run as "${second.run}", ` +
    `writing the same folder and latest.json; rename one of them`;
}

/**
 * The run names of a set of reports (the files of one `validate`, cdk.json's reports), claimed one
 * report at a time: the first owner of a name keeps it, a later report that would share one is
 * refused with sentences naming both.
 */
export class RunNameClaims {
  readonly #owners = new Map<string, RunNameOwner & { readonly origin?: string }>();

  /** Claims the run names of `definition` (as written); returns the problems refusing it (none: claimed). */
  claim(definition: unknown, origin?: string): { readonly path: string; readonly message: string }[] {
    const mine = runNamesOf(definition).map((o) => ({ ...o, ...(origin !== undefined && { origin }) }));
    const refusals = mine.flatMap((owner) => {
      const first = this.#owners.get(owner.run);
      // The same report twice is the duplicate-name check's to report, not this one's.
      if (!first || first.report === owner.report) return [];
      return [{ path: owner.delivery === undefined ? 'name' : 'deliveries', message: runNameCollision(first, owner) }];
    });
    if (refusals.length === 0) for (const owner of mine) if (!this.#owners.has(owner.run)) this.#owners.set(owner.run, owner);
    return refusals;
  }
}

/**
 * Every stored owner of the run name `name`, found through `get` (the stored reports): the report
 * of that name, and each report whose delivery makes a slice of that name (a slice's definition is
 * made from its report's). Run links and on-demand exports of one audience name a slice so.
 */
export async function storedOwnersOf(name: string, get: (report: string) => Promise<unknown>): Promise<(RunNameOwner & { readonly definition: Raw })[]> {
  const owners: (RunNameOwner & { definition: Raw })[] = [];
  const own = object(await get(name));
  if (own) owners.push({ run: name, report: name, definition: own });
  for (let at = name.indexOf(SLICE_SEPARATOR); at > 0; at = name.indexOf(SLICE_SEPARATOR, at + 1)) {
    const report = name.slice(0, at);
    const base = await get(report);
    const delivery = deliveriesOf(base).find((d) => d.name === name.slice(at + SLICE_SEPARATOR.length));
    if (delivery) owners.push({ run: name, report, delivery: String(delivery.name), definition: sliceDefinition(base, delivery) });
  }
  return owners;
}
