import type { Clock } from '../../core/clock';
import type { TableRow } from '../../table/table';
import { emptyCounts, type ChangeCounts, type ChangeRow } from './model';
import { readSnapshot, SnapshotReadError, type SnapshotHeader } from './snapshot';
import { displayPair, type BoundSpec, type SnapshotValue } from './specs';
import { ScratchFileError, SpilledKeyPrints } from './keys/spilled-key-prints';

/**
 * The comparison of one table with its baseline snapshot. The baseline is streamed into a map of
 * key → fingerprint of the tracked values kept in a scratch file (SpilledKeyPrints: in memory, one bit
 * a baseline row plus a bounded working set); each row of this run is looked up as it streams past,
 * one positional read of the file (of its copy in memory, for a table up to 16 MiB), and its entry
 * marked seen by the baseline row's ordinal, so the ordinals left unmarked at the end were removed.
 * Only rows that differ keep more than that, and a
 * second pass over the baseline (read from storage again, as a stream) fetches their old values and
 * the removed rows' titles: changes are few, rows are many. That pass counts the baseline's rows as it
 * reads, so it knows a removed row by its ordinal without a lookup.
 *
 * The comparison owns the scratch file: `close` removes it, and the tracker calls it however the
 * table ends. A scratch file that fails (a full disk) is a ScratchFileError from `load` or `finish`.
 */
export class TableComparison {
  private readonly remaining: SpilledKeyPrints;
  /** The scratch file's failure during `row`, thrown by `finish` (the export goes on meanwhile). */
  private failure: ScratchFileError | undefined;
  private readonly changed = new Map<string, Candidate>();
  private readonly added: Candidate[] = [];
  private readonly scopeAdded = new Map<string, number>();
  private readonly baseUnits: Set<string>;
  private readonly currentUnits: Set<string>;

  private constructor(
    private readonly bound: BoundSpec,
    /** The baseline's bytes as they arrive from storage; each pass opens them anew. */
    private readonly openBaseline: () => Promise<AsyncIterable<Uint8Array>>,
    private readonly baseline: SnapshotHeader,
    private readonly current: SnapshotHeader,
    clock: Clock,
    expectedRows: number,
  ) {
    this.remaining = SpilledKeyPrints.open({ expectedRows, clock });
    this.baseUnits = new Set(baseline.scope.units.map((u) => u.id));
    this.currentUnits = new Set(current.scope.units.map((u) => u.id));
  }

  /**
   * Streams the baseline into the map. Resolves with a sentence instead when the tables cannot be
   * compared (other tracked columns, other settings); throws SnapshotReadError when it is unreadable,
   * ScratchFileError when the map's file fails. The scratch file is removed when it throws.
   */
  static async load(
    bound: BoundSpec,
    openBaseline: () => Promise<AsyncIterable<Uint8Array>>,
    current: SnapshotHeader,
    /** The run's clock: the key map judges stale scratch directories by it. */
    clock: Clock,
    /** The baseline's rows (its manifest says): the key map's buckets are sized for them. */
    baselineRows = 0,
  ): Promise<TableComparison | string> {
    let comparison: TableComparison | undefined;
    let refusal: string | undefined;
    try {
      await readSnapshot(
        await openBaseline(),
        (header) => {
          refusal = incompatibility(bound, header, current);
          if (refusal !== undefined) throw new StopReading();
          comparison = new TableComparison(bound, openBaseline, header, current, clock, baselineRows);
        },
        { onKey: (key, print) => comparison!.remaining.set(key, print) },
      );
      comparison?.remaining.seal();
    } catch (error) {
      comparison?.close();
      if (!(error instanceof StopReading)) throw error;
    }
    if (refusal !== undefined) return refusal;
    if (!comparison) throw new SnapshotReadError('it has no header');
    return comparison;
  }

  /** Compares one row of this run; `print` is the fingerprint of its tracked values (see SnapshotWriter). */
  row(row: TableRow, sheetRow: number, values: readonly SnapshotValue[], print: number): void {
    if (this.failure) return;
    const key = this.bound.keyOf(row);
    const before = this.lookUp(key, print);
    if (before === undefined) return;
    if (before === 'absent') {
      const scope = this.bound.scopeOf(row);
      if (scope !== null && !this.baseUnits.has(scope) && this.currentUnits.has(scope)) {
        this.scopeAdded.set(scope, (this.scopeAdded.get(scope) ?? 0) + 1);
        return;
      }
      this.added.push(this.candidate(row, key, sheetRow, values));
      return;
    }
    if (before === 'changed') this.changed.set(key, this.candidate(row, key, sheetRow, values));
  }

  /** Removes the key map's scratch file. Safe to call more than once. */
  close(): void {
    this.remaining.close();
  }

  /** The key map's answer, or undefined (and the comparison failed) when its file cannot be read. */
  private lookUp(key: string, print: number): 'absent' | 'same' | 'changed' | undefined {
    try {
      return this.remaining.take(key, print);
    } catch (error) {
      if (!(error instanceof ScratchFileError)) throw error;
      this.failure = error;
      return undefined;
    }
  }

  /**
   * Ends the comparison: the second pass over the baseline, then the change rows in order. Throws
   * the ScratchFileError a row met. Does not close: the caller does, whether this resolves or throws.
   */
  async finish(): Promise<{ rows: ChangeRow[]; counts: ChangeCounts }> {
    if (this.failure) throw this.failure;
    const { fields } = this.bound;
    const counts = emptyCounts();
    const removed: ChangeRow[] = [];
    const changed: ChangeRow[] = [];
    const scopeRemoved = new Map<string, number>();
    const oldValues = new Map<string, readonly SnapshotValue[]>();
    if (this.remaining.size > 0 || this.changed.size > 0) {
      const want = (key: string, ordinal: number) => !this.remaining.isSeen(ordinal) || this.changed.has(key);
      await readSnapshot(await this.openBaseline(), () => undefined, { want, onRow: (old, ordinal) => {
        if (this.changed.has(old.key)) {
          oldValues.set(old.key, old.values);
        } else if (!this.remaining.isSeen(ordinal)) {
          if (old.scope !== null && this.baseUnits.has(old.scope) && !this.currentUnits.has(old.scope)) {
            scopeRemoved.set(old.scope, (scopeRemoved.get(old.scope) ?? 0) + 1);
            return;
          }
          counts.removed++;
          removed.push({ ...this.changeRow('removed', old.display, null, null, old.title, 'removed', null, null), context: unitLabel(this.baseline, old.scope) });
        }
      } });
    }
    for (const [key, now] of this.changed) {
      const before = oldValues.get(key);
      if (!before) continue;
      let any = false;
      fields.forEach((field, i) => {
        const from = before[i] ?? null;
        const to = now.values[i] ?? null;
        if (from === to) return;
        any = true;
        changed.push({
          ...this.changeRow('changed', now.display, now.link, now.sheetRow, now.title, field.label, ...displayPair(from, to, field.type)),
          context: now.context,
          typed: { type: field.type, from, to },
        });
      });
      if (any) counts.changed++;
    }
    counts.added = this.added.length;
    const scopeRows: ChangeRow[] = [];
    for (const unit of this.current.scope.units) {
      if (this.baseUnits.has(unit.id)) continue;
      counts.scope++;
      const rows = this.scopeAdded.get(unit.id) ?? 0;
      scopeRows.push(this.changeRow('scope', unit.id, null, null, unit.label, 'added to the selection', null, rowsText(rows)));
    }
    for (const unit of this.baseline.scope.units) {
      if (this.currentUnits.has(unit.id)) continue;
      counts.scope++;
      const rows = scopeRemoved.get(unit.id) ?? 0;
      scopeRows.push(this.changeRow('scope', unit.id, null, null, unitLabel(this.baseline, unit.id) ?? unit.id, 'removed from the selection', rowsText(rows), null));
    }
    const added = this.added.map((a) => ({ ...this.changeRow('added', a.display, a.link, a.sheetRow, a.title, 'added', null, null), context: a.context }));
    return { rows: [...scopeRows, ...added, ...removed, ...changed], counts };
  }

  private candidate(row: TableRow, key: string, sheetRow: number, values: readonly SnapshotValue[]): Candidate {
    const b = this.bound;
    const context = [unitLabel(this.current, b.scopeOf(row)), b.teamsOf(row)].filter(Boolean).join(' · ') || null;
    return { key, display: b.displayOf(row), title: b.titleOf(row), link: b.linkOf(row), sheetRow, values, context };
  }

  private changeRow(
    kind: ChangeRow['kind'],
    key: string | null,
    link: string | null,
    sheetRow: number | null,
    title: string | null,
    what: string,
    from: string | null,
    to: string | null,
  ): ChangeRow {
    const spec = this.bound.spec;
    return { table: spec.table, tableLabel: spec.label, kind, key, link, sheetRow, title, what, from: from || null, to: to || null };
  }
}

interface Candidate {
  readonly key: string;
  readonly display: string;
  readonly title: string | null;
  readonly link: string | null;
  readonly sheetRow: number;
  readonly values: readonly SnapshotValue[];
  readonly context: string | null;
}

/** The people's name of a selection unit (board, register, theme) as the snapshot header lists it. */
function unitLabel(header: SnapshotHeader, id: string | null): string | null {
  return id === null ? null : (header.scope.units.find((u) => u.id === id)?.label ?? null);
}

class StopReading extends Error {}

function rowsText(n: number): string {
  return n === 1 ? '1 row' : `${n.toLocaleString('en-US')} rows`;
}

/** Why a baseline table cannot be compared with this run's, or undefined when it can. */
export function incompatibility(bound: BoundSpec, baseline: SnapshotHeader, current: SnapshotHeader): string | undefined {
  const label = bound.spec.label;
  const same =
    baseline.fields.length === current.fields.length &&
    baseline.fields.every((f, i) => f.column === current.fields[i]!.column && f.type === current.fields[i]!.type);
  if (!same) {
    const before = baseline.fields.map((f) => f.column).join(', ') || '(none)';
    const now = current.fields.map((f) => f.column).join(', ') || '(none)';
    return `${label} were not compared: the earlier run's table had other columns (${before}; now ${now}).`;
  }
  for (const [name, value] of Object.entries(current.scope.settings)) {
    const old = baseline.scope.settings[name];
    if (old !== undefined && old !== value) {
      return `${label} were not compared: ${name} was ${String(old ?? 'the default')} in the earlier run and is ${String(value ?? 'the default')} now.`;
    }
  }
  return undefined;
}
