import type { ReportSummary } from './table';
import type { ReaderFormat } from '../core/format';
import type { MessageId } from '../core/i18n/messages';

/** How many items "Needs attention" counts, of each kind in the order first listed: `Risk` 13, `OKR` 2. */
export interface AttentionTally {
  readonly total: number;
  readonly byKind: readonly { readonly kind: string; readonly count: number }[];
}

/**
 * The items behind "Needs attention", not its rows: a row of a kind is one item, an "n more" row is
 * n of its kind. Counting rows made "8 items need attention" of a list of 15 (the "8 more" row was one).
 */
export function attentionTally(summary: ReportSummary): AttentionTally {
  const counts = new Map<string, number>();
  const rows = summary.sections.filter((s) => s.role === 'attention').flatMap((s) => s.grid?.rows ?? []);
  for (const row of rows) {
    const kind = row.more?.kind ?? (typeof row.values[0] === 'string' ? row.values[0] : '');
    counts.set(kind, (counts.get(kind) ?? 0) + (row.more?.count ?? 1));
  }
  const byKind = [...counts].map(([kind, count]) => ({ kind, count }));
  return { total: byKind.reduce((n, k) => n + k.count, 0), byKind };
}

/**
 * Each kind "Needs attention" names (the What column, summary/*-figures.ts): its English name, the
 * catalogue's word for it in the list (undefined: the same in every language) and its count's words.
 */
const KINDS: readonly { readonly name: string; readonly word?: MessageId; readonly count: MessageId }[] = [
  { name: 'Risk', word: 'attention.risk', count: 'kind.risk' },
  { name: 'OKR', count: 'kind.okr' },
  { name: 'PI', word: 'attention.pi', count: 'kind.pi' },
  { name: 'PI objective', word: 'attention.piObjective', count: 'kind.piObjective' },
];

/**
 * "15 need attention: 13 risks, 2 OKRs", "1 needs attention: 1 risk", "nothing needs attention", in
 * the reader's language: the count and what it is made of, so a reader can match it with the list.
 * A kind is known by its English name or by the reader's word for it (the list in German says
 * "Risiko": read as a word of its own, it gave "13 Risiko").
 */
export function attentionSentence(tally: AttentionTally, format: Pick<ReaderFormat, 't' | 'integer'>): string {
  const kinds = tally.byKind.map(({ kind, count }) => {
    const known = KINDS.find((k) => k.name === kind || (k.word !== undefined && format.t(k.word) === kind));
    return known ? format.t(known.count, { count }) : `${format.integer(count)} ${kind}`.trim();
  });
  return format.t('email.attentionItems', { total: tally.total, kinds: kinds.join(', ') });
}
