import type { LinkValue, SummaryLine, SummarySection } from '../table/table';
import type { ReaderFormat } from '../core/format';
import { notComparedText } from '../core/i18n/not-compared';

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
  /** The changed item's workbook row and tracker address (`web`), when known: the line's label links there. */
  readonly link?: LinkValue | undefined;
}

/** The kinds of change a cut list counts, most telling first (the comparison's weights, report/changes/model.ts). */
export type LeftOutKind = 'item' | 'raised' | 'scope' | 'added' | 'removed' | 'status' | 'other';

export interface ChangesDigest {
  /** "16 Nov 2026": when the run compared with was made; null when there was none. */
  readonly since: string | null;
  /** Why nothing was compared, in one sentence. */
  readonly note: string | null;
  readonly counts: { readonly added: number; readonly removed: number; readonly changed: number; readonly scope: number };
  readonly top: readonly ChangesDigestRow[];
  /** The changes not among `top`, by kind, most telling first: `{ count: 14, weight: 'status' }`. */
  readonly leftOut: readonly { readonly count: number; readonly weight: LeftOutKind }[];
}

/** "14 more status changes and 39 more field changes, in the workbook's Changes sheet"; null when nothing was left out. */
export function leftOutText(digest: ChangesDigest, format: ReaderFormat): string | null {
  if (digest.leftOut.length === 0) return null;
  const parts = digest.leftOut.map((p) => format.t(`changes.leftOut.${p.weight}`, { count: p.count }));
  // "a, b and c" as the language joins a list.
  const listed = new Intl.ListFormat(format.messages.language, { type: 'conjunction' }).format(parts);
  return format.t('changes.leftOut', { listed });
}

export function changesHeading(digest: ChangesDigest, format: ReaderFormat): string {
  return digest.since ? format.t('term.whatChangedSince', { date: digest.since }) : format.t('term.whatChanged');
}

export function countsText(digest: ChangesDigest, format: ReaderFormat): string {
  const c = digest.counts;
  if (c.added + c.removed + c.changed + c.scope === 0) return format.t('term.nothingChanged');
  const parts = [format.t('changes.counts', { added: format.integer(c.added), removed: format.integer(c.removed), changed: format.integer(c.changed), addedCount: c.added, removedCount: c.removed, changedCount: c.changed })];
  if (c.scope > 0) parts.push(format.t('changes.scopeCount', { count: c.scope }));
  return `${parts.join(', ')}.`;
}

/**
 * The section as the e-mail's other sections are drawn (label and value lines), so the HTML and
 * text parts show it alike: the counts (or why nothing was compared), then the top changes.
 */
export function changesSection(digest: ChangesDigest, format: ReaderFormat): SummarySection {
  const lines: SummaryLine[] = [];
  if (digest.note !== null) {
    lines.push({ label: format.t('term.notCompared'), value: notComparedText(digest.note, format.messages) });
  } else {
    lines.push({ label: format.t('term.inAll'), value: countsText(digest, format) });
    for (const row of digest.top) {
      const label = [row.table, row.key, row.title].filter((p) => p).join(' ');
      lines.push({ label, value: changeValue(row, format), ...(row.link && { link: { ...row.link, text: label } }) });
    }
    const more = leftOutText(digest, format);
    if (more) lines.push({ label: format.t('term.more'), value: more });
  }
  return { heading: changesHeading(digest, format), role: 'changes', lines };
}

function changeValue(row: ChangesDigestRow, format: ReaderFormat): string {
  // "Statut : In Progress → Mitigated": French sets a space before the colon.
  if (row.kind === 'changed') return format.t('term.labelled', { label: row.what, value: `${row.from ?? '–'} → ${row.to ?? '–'}` });
  return [row.what, row.from, row.to].filter((p) => p).join(' ');
}
