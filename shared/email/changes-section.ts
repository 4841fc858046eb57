import type { SummaryLine, SummarySection } from '../table/table';
import { term } from '../core/glossary';

/**
 * The e-mail's "What changed since <date>" section: counts per kind and the top changes; the rest
 * is in the workbook's Changes sheet. Built from a small digest of the run's comparison so the
 * e-mail knows nothing about snapshots or baselines.
 */
export interface ChangesDigestRow {
  readonly table: string;
  readonly kind: 'added' | 'removed' | 'changed' | 'scope' | 'note';
  readonly key: string | null;
  readonly title: string | null;
  readonly what: string;
  readonly from: string | null;
  readonly to: string | null;
}

export interface ChangesDigest {
  /** "16 Nov 2026": when the run compared with was made; null when there was none. */
  readonly since: string | null;
  /** Why nothing was compared, in one sentence. */
  readonly note: string | null;
  readonly counts: { readonly added: number; readonly removed: number; readonly changed: number; readonly scope: number };
  readonly top: readonly ChangesDigestRow[];
  /** The changes not among `top`, by kind, most telling first: `{ count: 14, what: 'status changes' }`. */
  readonly leftOut: readonly { readonly count: number; readonly what: string }[];
}

/** "14 more status changes and 39 more field changes, in the workbook's Changes sheet"; null when nothing was left out. */
export function leftOutText(digest: ChangesDigest): string | null {
  if (digest.leftOut.length === 0) return null;
  const parts = digest.leftOut.map((p) => `${p.count} more ${p.what}`);
  const listed = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
  return `${listed}, in the workbook's Changes sheet`;
}

export function changesHeading(digest: ChangesDigest): string {
  return digest.since ? term('whatChangedSince', { date: digest.since }) : term('whatChanged');
}

export function countsText(digest: ChangesDigest): string {
  const c = digest.counts;
  if (c.added + c.removed + c.changed + c.scope === 0) return term('nothingChanged');
  const parts = [`${c.added} added`, `${c.removed} removed`, `${c.changed} changed`];
  if (c.scope > 0) parts.push(`${c.scope} selection ${c.scope === 1 ? 'change' : 'changes'}`);
  return `${parts.join(', ')}.`;
}

/**
 * The section as the e-mail's other sections are drawn (label and value lines), so the HTML and
 * text parts show it alike: the counts (or why nothing was compared), then the top changes.
 */
export function changesSection(digest: ChangesDigest): SummarySection {
  const lines: SummaryLine[] = [];
  if (digest.note !== null) {
    lines.push({ label: term('notCompared'), value: digest.note });
  } else {
    lines.push({ label: term('inAll'), value: countsText(digest) });
    for (const row of digest.top) lines.push({ label: [row.table, row.key, row.title].filter((p) => p).join(' '), value: changeValue(row) });
    const more = leftOutText(digest);
    if (more) lines.push({ label: term('more'), value: more });
  }
  return { heading: changesHeading(digest), role: 'changes', lines };
}

function changeValue(row: ChangesDigestRow): string {
  if (row.kind === 'changed') return `${row.what}: ${row.from ?? '–'} → ${row.to ?? '–'}`;
  return [row.what, row.from, row.to].filter((p) => p).join(' ');
}
