/**
 * Runs compared variants interleaved rather than one after the other, so that whatever drifts
 * during a benchmark (a machine warming up, a neighbour's load, the page cache) falls on every
 * variant alike instead of on whichever ran first. Rounds alternate their order, A B then B A
 * (for more variants: forwards, then backwards), which cancels a drift that is linear in time as
 * well as the cost of going first or last in a round.
 */
export interface Variant<T> {
  readonly label: string;
  /** One measurement; each call should start from fresh servers, so no run inherits another's state. */
  readonly run: (round: number) => Promise<T>;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** Every variant's results, in its own run order, keyed by label. */
export async function interleaved<T>(variants: readonly Variant<T>[], rounds: number): Promise<Map<string, T[]>> {
  const results = new Map<string, T[]>(variants.map((v) => [v.label, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) results.get(variant.label)!.push(await variant.run(round));
  }
  return results;
}

/** Median and range of a sample. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, n: sorted.length };
}

/** `4.47 s (median of 3, 4.30–4.61 s)`, or the one value when there is one. */
export function spreadText(values: readonly number[], unit: (n: number) => string): string {
  const s = spread(values);
  if (s.n <= 1) return unit(s.median);
  return `${unit(s.median)} (median of ${s.n}, ${unit(s.min).replace(/ \S+$/, '')}–${unit(s.max)})`;
}
