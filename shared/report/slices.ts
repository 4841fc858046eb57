import { SLICE_SEPARATOR } from './definition';

/**
 * A report's deliveries as reports of their own (docs/reports.md): each slice is the report's
 * definition, as written, with the slice's name, title, recipients and channels, and the report's
 * selectors narrowed by the slice's filter. A slice run is therefore an ordinary run over that part
 * of the data; its figures are those a separate report over the same part would show.
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

/** The definition (as written) of one delivery of `base`. */
export function sliceDefinition(base: unknown, delivery: Raw): Raw {
  const { deliveries: _deliveries, email: _email, delivery: baseDelivery, ...rest } = object(base) ?? {};
  const name = String(rest.name);
  const filter = object(delivery.filter) ?? {};
  const when = object(baseDelivery)?.when;
  const ownDelivery = object(delivery.delivery);
  return {
    ...rest,
    name: sliceReportName(name, String(delivery.name)),
    title: typeof delivery.title === 'string' ? delivery.title : `${typeof rest.title === 'string' ? rest.title : name} — ${String(delivery.name)}`,
    datasets: narrowed(object(rest.datasets) ?? {}, filter),
    ...(delivery.email !== undefined && { email: delivery.email }),
    // The audience's own channels; the report's `when` holds unless the delivery says otherwise.
    ...(ownDelivery ? { delivery: ownDelivery } : when !== undefined && { delivery: { when } }),
  };
}

/** The report's datasets with the filter's selectors in place of the report's. */
function narrowed(datasets: Raw, filter: Raw): Raw {
  const out: Record<string, unknown> = { ...datasets };
  const set = (dataset: string, selector: string, ids: unknown) => {
    const current = object(out[dataset]);
    if (current && Array.isArray(ids)) out[dataset] = { ...current, [selector]: ids };
  };
  set('risks', 'registers', filter.registers);
  set('okrs', 'strategicThemes', filter.themes);
  for (const dataset of ['piObjectives', 'boardItems']) {
    set(dataset, 'boards', filter.boards);
    set(dataset, 'collections', filter.collections);
  }
  return out;
}

/**
 * The definition (as written) of a slice named `<report>--<delivery>`, found through `get` (the
 * stored reports), or undefined. Run links and on-demand exports of one audience name it so.
 */
export async function findSliceDefinition(name: string, get: (report: string) => Promise<unknown>): Promise<Raw | undefined> {
  for (let at = name.indexOf(SLICE_SEPARATOR); at > 0; at = name.indexOf(SLICE_SEPARATOR, at + 1)) {
    const base = await get(name.slice(0, at));
    const delivery = deliveriesOf(base).find((d) => d.name === name.slice(at + SLICE_SEPARATOR.length));
    if (delivery) return sliceDefinition(base, delivery);
  }
  return undefined;
}
