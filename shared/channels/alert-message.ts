import type { ChannelWords } from './channel';

/**
 * An alert (docs/reports.md, "Alerts"): short, and only what crossed a line. Every channel writes it
 * from this (alert-payloads.ts), as it writes the report's message from ChannelMessage.
 */
export interface AlertLine {
  /** The rule's figure or event, by the glossary's name: "Open high or critical risks". */
  readonly rule: string;
  /** The value and the line, or the item: "30, above 29"; "SEC-7 Payment gateway …: Low → Critical". */
  readonly text: string;
}

export interface AlertMessage {
  /** "Alert: Train A – weekly". */
  readonly title: string;
  /** When the run read the planning tool, in the report's locale and zone. */
  readonly generated: string;
  readonly runId: string;
  /** One line per rule crossed (an event's rule: one per item). */
  readonly lines: readonly AlertLine[];
  /** A link to the run's workbook, when the run's links can be signed. */
  readonly workbookUrl: string | undefined;
  /** The alert's own words in the reader's language (channelWords); English when absent. */
  readonly words?: ChannelWords | undefined;
}

/** "Open high or critical risks: 30, above 29": a line as one text. */
export function alertLineText(line: AlertLine): string {
  return `${line.rule}: ${line.text}`;
}
