import type { CellValue, SummaryGridColumn } from '../../table/table';
import type { Messages } from '../../core/i18n/messages';
import { DAY_MS } from '../../core/clock';
import { sheetRowUrl } from '../sheet-names';

/**
 * The planning tool's words, read the way a Release Train Engineer reads them. Registers, themes
 * and boards name their levels and statuses freely, so these are patterns over the usual names;
 * anything unrecognised is treated as the least alarming choice (open, unknown severity last).
 */

/** Severity rank of a risk level title: 0 is the most severe; unknown titles after the known ones. */
export function severityRank(level: string | null | undefined): number {
  const t = (level ?? '').trim().toLowerCase();
  if (t === '') return 99;
  if (/critical|extreme|severe|very high/.test(t)) return 0;
  if (/high/.test(t)) return 1;
  if (/medium|moderate/.test(t)) return 2;
  if (/very low|negligible|minimal/.test(t)) return 4;
  if (/low/.test(t)) return 3;
  return 50;
}

export function isHighOrCritical(level: string | null | undefined): boolean {
  return severityRank(level) <= 1;
}

/** A risk status that no longer needs action. */
export function isClosedRiskStatus(status: string | null | undefined): boolean {
  return /closed|mitigated|resolved|done|cancel|archiv|accepted/i.test(status ?? '');
}

/** Rank for ordering risk statuses in the matrix: open ones first, closed ones last. */
export function riskStatusRank(status: string): number {
  const known = ['open', 'new', 'identified', 'in progress', 'monitoring', 'accepted', 'mitigated', 'resolved', 'closed'];
  const i = known.indexOf(status.toLowerCase());
  return i >= 0 ? i : isClosedRiskStatus(status) ? 100 : 50;
}

export type OkrHealth = 'not-started' | 'on-track' | 'at-risk' | 'off-track' | 'done' | 'other';

export function okrHealth(status: string | null | undefined): OkrHealth {
  const t = (status ?? '').toLowerCase();
  if (/not[\s-]?started|to ?do|new/.test(t)) return 'not-started';
  if (/done|achieved|complete|closed/.test(t)) return 'done';
  if (/off[\s-]?track|behind|blocked/.test(t)) return 'off-track';
  if (/at[\s-]?risk/.test(t)) return 'at-risk';
  if (/on[\s-]?track/.test(t)) return 'on-track';
  return 'other';
}

/** A PI objective counts as committed unless its type says uncommitted (SAFe's stretch objectives). */
export function isCommitted(type: string | null | undefined): boolean {
  return !/uncommitted|stretch/i.test(type ?? '') && /committed/i.test(type ?? '');
}

/** A board in its execution phase (the PI is running), as opposed to planning or closed. */
export function isTrackingState(state: string | null | undefined): boolean {
  return /tracking|active|execution|in progress|running/i.test(state ?? '');
}

/** A board whose PI is over (its business value has been scored). */
export function isClosedBoardState(state: string | null | undefined): boolean {
  return /closed|done|complete|finished|archiv/i.test(state ?? '');
}

/** SAFe's predictability band: 80-100 % of the planned business value delivered. */
export const PREDICTABILITY_BAND = { low: 80, high: 100 } as const;

/** Fills people read without a legend: green in band, amber outside. */
export const FILLS = { good: '#C6EFCE', warn: '#FFEB9C', bad: '#FFC7CE' } as const;

export function bandFill(percent: number | null): string | null {
  if (percent === null) return null;
  return percent >= PREDICTABILITY_BAND.low && percent <= PREDICTABILITY_BAND.high ? FILLS.good : FILLS.warn;
}

/**
 * A link to a row of a worksheet: `#'Sheet name'!A<row>` (row 1 is the header), and to the item in
 * the planning tool (`web`) when the definition gives its address. The text is the item's whole
 * title: each surface wraps it (a cut title named a different risk in the e-mail than in the tool).
 */
export function rowLink(text: string, sheet: string, row: number, web?: string): CellValue {
  return { text, url: sheetRowUrl(sheet, row), ...(web !== undefined && { web }) };
}

/** Columns of "Needs attention", the same for every dataset so the sections merge into one table. */
export function attentionColumns(messages: Messages): readonly SummaryGridColumn[] {
  return [{ label: messages.t('term.attentionWhat') }, { label: messages.t('term.attentionItem'), type: 'link' }, { label: messages.t('term.attentionWhy') }];
}

/** Items of each kind shown in "Needs attention" (ten, as the glossary says); the rest are counted in one more line that links to them all. */
export const ATTENTION_LIMIT = 10;

/** Calendar days from `from` to `to`, both dates at 00:00 UTC. */
export function daysBetween(from: Date, to: Date): number {
  return Math.round((to.getTime() - from.getTime()) / DAY_MS);
}

/** A ratio as a percentage (0-100), or null when there is nothing to divide by. */
export function percentOf(part: number, whole: number): number | null {
  return whole > 0 ? (100 * part) / whole : null;
}
