import { messagesFor, type Messages } from '../core/i18n/messages';

/**
 * The port of a chat channel: it turns the report message and the alert into the JSON its incoming
 * webhook takes. Posting, retries and secrets are the same for every channel (webhook-post.ts,
 * deliver.ts), so a new channel is one file with a `Channel` and one entry in CHANNELS (channels.ts).
 */

/** One figure as the reader sees it: "Open risks" → "2,148". Values are plain text, already formatted in the report's locale. */
export interface MessageFigure {
  readonly label: string;
  readonly value: string;
}

export interface MessageSection {
  readonly heading: string;
  readonly figures: readonly MessageFigure[];
}

/**
 * One item of "Needs attention" ("Risk R-12 Vendor lock-in: High · no owner") or of "What changed"
 * ("Board items MOB-8 …: Status: In Progress → Done"), and its address in the planning tool when known.
 */
export interface AttentionLine {
  readonly text: string;
  /** An http(s) address (the definition's `links.riskUrl` and the like); absent: shown as text. */
  readonly url?: string | undefined;
}

/** What every channel shows, in this order: the e-mail's content, trimmed to what fits a chat message. */
export interface ChannelMessage {
  /** The report's title. */
  readonly title: string;
  /** The headline figures in one line ("Open risks 58 · … · 8 items need attention"): the notification's and the fallback's text. */
  readonly notification: string;
  /** "23/11/2026, 07:00 CET (Europe/Berlin)": in the report's locale and zone. */
  readonly generated: string;
  readonly runId: string;
  /** "In brackets: the change since 22/11/2026.": the date the figures' changes are since, said once; absent without a comparison. */
  readonly changesSince?: string | undefined;
  /** The headline figures, section by section. */
  readonly headline: readonly MessageSection[];
  /** "Needs attention": one line per item; empty when nothing does. */
  readonly attention: readonly AttentionLine[];
  /** How many more items need attention than `attention` lists. */
  readonly attentionMore: number;
  /**
   * The comparison with the earlier run: heading ("What changed since 16/11/2026"), its lines as the
   * e-mail has them (the counts, the top changes most telling first, each linked to its tracker page
   * where changes.csv has one, what the cut left out), total.
   */
  readonly changes: { readonly heading: string; readonly lines: readonly AttentionLine[]; readonly total: number } | undefined;
  readonly workbookUrl: string | undefined;
  readonly freshCopyUrl: string | undefined;
  /** The channel's own words in the reader's language (channelWords); English when absent. */
  readonly words?: ChannelWords | undefined;
}

/** The words a chat message adds around the report's figures, in one reader's language. */
export interface ChannelWords {
  /** The tag the words are in (Messages.language), for an e-mail's `lang`. */
  readonly language: string;
  generated(when: string): string;
  run(runId: string): string;
  /** "…and 3 more in the workbook" (`inWorkbook`), "…and 3 more". */
  more(count: number, inWorkbook: boolean): string;
  readonly needsAttention: string;
  readonly nothingNeedsAttention: string;
  readonly linesCrossed: string;
  readonly openWorkbook: string;
  readonly freshCopy: string;
  /** The e-mail's way out: "Stop e-mailing me this report". */
  readonly unsubscribe: string;
  /** An alert's first line crossed "and 2 more". */
  andMore(first: string, count: number): string;
  /** "Open risks: 58", "Risques ouverts : 58": a label and its value, with the language's colon. */
  labelled(label: string, value: string): string;
}

/** The channel words of `messages` (the reader's, resolved once with the reader's format). */
export function channelWords(messages: Messages): ChannelWords {
  return {
    language: messages.language,
    generated: (when) => messages.t('chat.generated', { when }),
    run: (runId) => messages.t('chat.run', { runId }),
    more: (count, inWorkbook) => messages.t(inWorkbook ? 'chat.moreInWorkbook' : 'chat.more', { count }),
    needsAttention: messages.t('term.needsAttention'),
    nothingNeedsAttention: messages.t('term.nothingNeedsAttention'),
    linesCrossed: messages.t('term.linesCrossed'),
    openWorkbook: messages.t('email.openWorkbook'),
    freshCopy: messages.t('email.freshCopy'),
    unsubscribe: messages.t('email.unsubscribe'),
    andMore: (first, count) => messages.t('alert.andMore', { first, count }),
    labelled: (label, value) => messages.t('term.labelled', { label, value }),
  };
}

const ENGLISH = channelWords(messagesFor('en'));

/** A message's words: its own, or English for a message built without (an older caller, a test's fixture). */
export function wordsOf(message: { readonly words?: ChannelWords | undefined }): ChannelWords {
  return message.words ?? ENGLISH;
}

/**
 * An alert (docs/reports.md, "Alerts"): short, and only what crossed a line. Every channel writes it
 * from this (`Channel.alertPayload`), as it writes the report's message from ChannelMessage.
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

/** "Open high or critical risks: 30, above 29": a line as one text, with the words' colon ("… : 30" in French). */
export function alertLineText(line: AlertLine, words: ChannelWords = ENGLISH): string {
  return words.labelled(line.rule, line.text);
}

export interface Channel {
  /** The name a definition uses: `delivery.channels[].type`. */
  readonly type: string;
  /** For people: "Slack", "Microsoft Teams". */
  readonly label: string;
  /** The webhook's JSON body for the run's message. */
  payload(message: ChannelMessage): unknown;
  /** The webhook's JSON body for an alert: short, only the lines crossed. */
  alertPayload(message: AlertMessage): unknown;
}

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
