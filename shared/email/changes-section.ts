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
  /** Changes not among `top`. */
  readonly more: number;
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

/** One change as a line of text: "Risks ENT-4 Vendor escalation: Status Open → Closed". */
export function changeText(row: ChangesDigestRow): string {
  const subject = [row.table, row.key, row.title].filter((p): p is string => p !== null && p !== '').join(' ');
  if (row.kind === 'changed') return `${subject}: ${row.what} ${row.from ?? '–'} → ${row.to ?? '–'}`;
  if (row.kind === 'scope') return `${subject}: ${row.what}${row.from ? ` (${row.from})` : ''}${row.to ? ` (${row.to})` : ''}`;
  return `${subject}: ${row.what}`;
}

export function renderChangesText(digest: ChangesDigest): string[] {
  const lines = ['', changesHeading(digest)];
  if (digest.note !== null) return [...lines, `  ${digest.note}`];
  lines.push(`  ${countsText(digest)}`);
  for (const row of digest.top) lines.push(`  - ${changeText(row)}`);
  if (digest.more > 0) lines.push(`  … and ${digest.more} more in the workbook's Changes sheet.`);
  return lines;
}

export function renderChangesHtml(
  digest: ChangesDigest,
  escapeHtml: (text: string) => string,
  style: { readonly h2: string; readonly muted: string; readonly list: string },
): string {
  const heading = `<h2 style="${style.h2}">${escapeHtml(changesHeading(digest))}</h2>`;
  if (digest.note !== null) return `${heading}<p style="${style.muted}">${escapeHtml(digest.note)}</p>`;
  const items = digest.top.map((row) => `<li>${escapeHtml(changeText(row))}</li>`).join('');
  const more = digest.more > 0 ? `<p style="${style.muted}">… and ${digest.more} more in the workbook's Changes sheet.</p>` : '';
  return (
    heading +
    `<p style="margin:0 0 8px 0;font-size:14px;">${escapeHtml(countsText(digest))}</p>` +
    (items ? `<ul style="${style.list}">${items}</ul>` : '') +
    more
  );
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
    if (digest.more > 0) lines.push({ label: term('more'), value: `${digest.more} more in the workbook's Changes sheet` });
  }
  return { heading: changesHeading(digest), role: 'headline', lines };
}

function changeValue(row: ChangesDigestRow): string {
  if (row.kind === 'changed') return `${row.what}: ${row.from ?? '–'} → ${row.to ?? '–'}`;
  return [row.what, row.from, row.to].filter((p) => p).join(' ');
}
