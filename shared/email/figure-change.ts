import type { ReaderFormat } from '../core/format';
import type { SummaryLine, SummarySection } from '../table/table';
import { cellText } from './email-format';

/**
 * The change since the compared run, with its date said once: the e-mail, chat and run page head a
 * column (or say one sentence) with the date, and each figure carries its change alone ("+4"). A
 * line read from a manifest written before `change` existed keeps its dated text ("+4 since 16/11/2026").
 */
export function changeOf(line: SummaryLine): string | undefined {
  return line.change ?? line.delta;
}

/** A figure's entry in a column of changes: where it stands against the reader's line first, then its change ("above your line of 29 · +1"). */
export function changeWithMark(line: SummaryLine): string | undefined {
  if (line.change === undefined) return line.delta;
  return line.beyond !== undefined ? `${line.beyond} · ${line.change}` : line.change;
}

/** The date the changes of these sections are since, from the first line that has one. */
export function changesSince(sections: readonly SummarySection[]): string | undefined {
  for (const section of sections) for (const line of section.lines) if (line.change !== undefined && line.since !== undefined) return line.since;
  return undefined;
}

/** The one sentence of a plain-text surface (text e-mail, chat): "In brackets: the change since 22/11/2026." */
export function changesSinceSentence(sections: readonly SummarySection[], format: ReaderFormat): string | undefined {
  const since = changesSince(sections);
  return since === undefined ? undefined : format.t('delta.inBrackets', { date: since });
}

/**
 * A headline figure as plain text: its value, where it stands against the reader's line, its change in
 * brackets: "30 — above your line of 29 (+1)". A line from an older manifest keeps its dated change.
 */
export function figureText(line: SummaryLine, format: ReaderFormat, withUrl: boolean): string {
  const value = cellText(line.value, line.type, format, withUrl);
  // Without a change of its own the line's delta says all there is (the reader's line, or an older manifest's dated change).
  if (line.change === undefined) return `${value}${line.delta ? ` (${line.delta})` : ''}`;
  return `${value}${line.beyond !== undefined ? ` — ${line.beyond}` : ''} (${line.change})`;
}
