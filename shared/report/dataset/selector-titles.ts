/**
 * Selectors of a report definition name a board, collection, risk register or theme by id, by key
 * (where the record has one) or by title, so a definition can be written from what people see in the
 * planning tool. Ids and keys win over titles; a title must name exactly one visible record.
 */

import type { PlanIssue } from './plan-issue';

/** A record a selector can name. */
export interface Selectable {
  readonly id: string;
  readonly key?: string | null | undefined;
  readonly title?: string | null | undefined;
}

/** How a problem with a selector speaks of the records it names. */
export interface SelectorWords {
  /** e.g. `risk register` */
  readonly noun: string;
  /** Whether these records have keys (registers, themes) or only ids and titles (boards, collections). */
  readonly keyed: boolean;
  /** Extra advice for an unknown selector, e.g. where board ids come from. */
  readonly hint?: string | undefined;
}

/** Titles compare without regard to case, surrounding blanks or runs of blanks. */
function normalise(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');
}

/** How one record is listed among the candidates: `KEY "Title"` or `id "Title"`. */
export function describeCandidate(record: Selectable): string {
  const handle = record.key ?? record.id;
  return record.title ? `${handle} "${record.title}"` : handle;
}

const MAX_LISTED = 30;

function listed(records: readonly Selectable[]): string {
  if (records.length === 0) return '(none)';
  const shown = records.slice(0, MAX_LISTED).map(describeCandidate).join(', ');
  return records.length > MAX_LISTED ? `${shown}, … (${records.length - MAX_LISTED} more)` : shown;
}

/** The record a selector names, or why it names none (a sentence for the plan's list of problems). */
export type Selected<T> = { readonly record: T; readonly problem?: undefined } | { readonly record?: undefined; readonly problem: string };

/**
 * The one visible record `selector` names: by id, else by key, else by title (an exact title
 * before one that differs only in case or blanks). Names the candidates when nothing or more than
 * one record has that title.
 */
export function selectRecord<T extends Selectable>(candidates: readonly T[], selector: string, words: SelectorWords): Selected<T> {
  const byId = candidates.find((c) => c.id === selector) ?? candidates.find((c) => c.key === selector);
  if (byId) return { record: byId };
  const exact = candidates.filter((c) => c.title === selector);
  const wanted = normalise(selector);
  const titled = exact.length > 0 ? exact : candidates.filter((c) => c.title && normalise(c.title) === wanted);
  if (titled.length === 1) return { record: titled[0]! };
  if (titled.length > 1) {
    return {
      problem: `"${selector}" is ambiguous: ${titled.length} visible ${words.noun}s have that title: ${listed(titled)}. ` +
        `Name one by its ${words.keyed ? 'key or id' : 'id'} instead.`,
    };
  }
  return {
    problem: `"${selector}" is not a ${words.noun} this key can see (by id${words.keyed ? ', key' : ''} or title); visible: ${listed(candidates)}.` +
      `${words.hint ? ` ${words.hint}` : ''}`,
  };
}

/**
 * The record each selector names, in selector order (a record named twice comes twice, as the
 * definition asks), and a problem at `<path>[i]` for each selector that names none.
 */
export function selectAll<T extends Selectable>(
  candidates: readonly T[],
  selectors: readonly string[],
  path: string,
  words: SelectorWords,
): { records: T[]; issues: PlanIssue[] } {
  const records: T[] = [];
  const issues: PlanIssue[] = [];
  selectors.forEach((selector, index) => {
    const selected = selectRecord(candidates, selector, words);
    if (selected.problem === undefined) records.push(selected.record);
    else issues.push({ path: `${path}[${index}]`, message: selected.problem });
  });
  return { records, issues };
}
