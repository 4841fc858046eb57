import type { Log } from '../../core/logger';

/**
 * Records the planning API sent more than once (an answer repeating its records, pages that overlap,
 * a board listed twice) are exported once: the first is kept, every later one is dropped and counted,
 * so no table holds an id twice (its rows would count twice in every figure, and the comparison with
 * the last run keys rows by id). Nothing is dropped silently: the manifest lists the counts
 * (summary.duplicatesDropped) and the log warns once per table.
 *
 * Counted under a table's name: the rows not written because the same record was already written
 * (with what is under it: a feature's stories, an objective's items or key results). Under `boards`,
 * `registers` and `portfolio-themes`: the entries dropped from the API's lists that choose what is
 * exported (what they hold is then fetched and written once).
 */
export class RepeatedRecords {
  readonly #dropped = new Map<string, number>();

  /** Counts `rows` dropped under `what` (a table's name, or one of the lists above). */
  drop(what: string, rows = 1): void {
    this.#dropped.set(what, (this.#dropped.get(what) ?? 0) + rows);
  }

  /**
   * True the first time `id` is offered to `seen`; afterwards false, and its row is counted under
   * `what` with the `under` rows that go with it (a feature's stories, an objective's items).
   */
  first(seen: Set<string>, id: string, what: string, under = 0): boolean {
    if (!seen.has(id)) {
      seen.add(id);
      return true;
    }
    this.drop(what, 1 + under);
    return false;
  }

  /** The list without its repeated entries (by id, the first kept, in order), the others counted under `what`. */
  unique<T>(records: readonly T[], idOf: (record: T) => string, what: string): T[] {
    const seen = new Set<string>();
    const kept = records.filter((r) => this.first(seen, idOf(r), what));
    return kept.length === records.length ? [...records] : kept;
  }

  /** Logs what was dropped under `what`, once, when anything was. */
  warn(log: Log, what: string): void {
    const dropped = this.#dropped.get(what);
    if (dropped) log.warn('the planning API sent records more than once; each is exported once', { table: what, duplicatesDropped: dropped });
  }

  /** The manifest's figure: only what was dropped, and nothing when nothing was. */
  figures(): { duplicatesDropped?: Record<string, number> } {
    return this.#dropped.size > 0 ? { duplicatesDropped: Object.fromEntries(this.#dropped) } : {};
  }
}
