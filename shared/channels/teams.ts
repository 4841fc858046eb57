import { wordsOf, type AlertMessage, type AttentionLine, type Channel, type ChannelMessage } from './channel';

/**
 * Microsoft Teams incoming webhook (a Workflows "post to a channel when a webhook request is
 * received" flow, or a legacy connector): a message whose one attachment is an Adaptive Card.
 * Version 1.4 is the newest every Teams client renders.
 */
export const ADAPTIVE_CARD_VERSION = '1.4';
export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

/** The attention list stops here: a card is read on a phone too. */
const MAX_ATTENTION_LINES = 15;

type Element = Readonly<Record<string, unknown>>;

/**
 * Text shown as typed in a TextBlock or a fact. Teams renders both as markdown (links, `**bold**`,
 * `_italic_`, lists and headings at a line's start), so a risk titled `[Sign in again](https://ev.il)`
 * would become a link in the organisation's channel; the planning tool's text is every value in a
 * message, so all of it is escaped, as slackEscape does for Slack. A backslash before punctuation is
 * markdown's own escape: the reader sees the character, not the backslash.
 */
export function teamsEscape(value: string): string {
  return (
    value
      .replace(/[\\`*_[\]<>~#]/g, (c) => `\\${c}`)
      // A list item or a heading underline starts a line: `- `, `+ `, `1. `, `1) `, `===`.
      .replace(/^([ \t]*)([-+=](?=[-+=\s]|$)|\d+(?=[.)](?:\s|$)))/gm, (_all, indent: string, marker: string) =>
        /\d/.test(marker) ? `${indent}${marker}\\` : `${indent}\\${marker}`,
      )
  );
}

const text = (value: string, extra: Element = {}): Element => ({ type: 'TextBlock', text: value, wrap: true, ...extra });
/**
 * An item linked to it in the planning tool: a TextBlock's markdown link `[text](url)`, its text
 * escaped (so it cannot end the link text or add one of its own); escaped text without an address.
 */
function attentionText(line: AttentionLine): string {
  if (line.url === undefined || /[\s()<>]/.test(line.url)) return teamsEscape(line.text);
  return `[${teamsEscape(line.text)}](${line.url})`;
}

const heading = (value: string): Element => text(value, { weight: 'Bolder', spacing: 'Medium' });

export function adaptiveCard(message: ChannelMessage): Element {
  const shown = message.attention.slice(0, MAX_ATTENTION_LINES);
  const more = message.attention.length - shown.length + message.attentionMore;
  const words = wordsOf(message);
  const body: Element[] = [
    text(teamsEscape(message.title), { size: 'Large', weight: 'Bolder' }),
    text(teamsEscape(words.generated(message.generated)), { isSubtle: true, spacing: 'None' }),
    // The date the changes in brackets are since, said once under the run's own.
    ...(message.changesSince ? [text(teamsEscape(message.changesSince), { isSubtle: true, spacing: 'None' })] : []),
    ...message.headline.flatMap((s) => [
      heading(teamsEscape(s.heading)),
      { type: 'FactSet', facts: s.figures.map((f) => ({ title: teamsEscape(f.label), value: teamsEscape(f.value) })) },
    ]),
    // In the order of every surface: the headline figures, what needs attention, what changed.
    heading(teamsEscape(words.needsAttention)),
    ...(shown.length === 0 && more === 0 ? [text(`${teamsEscape(words.nothingNeedsAttention)}.`)] : shown.map((l) => text(`• ${attentionText(l)}`, { spacing: 'Small' }))),
    ...(more > 0 ? [text(teamsEscape(words.more(more, true)), { isSubtle: true })] : []),
    ...(message.changes ? [heading(teamsEscape(message.changes.heading)), ...message.changes.lines.map((l) => text(attentionText(l), { spacing: 'Small' }))] : []),
    text(teamsEscape(words.run(message.runId)), { isSubtle: true, size: 'Small' }),
  ];
  const actions = [
    message.workbookUrl && { type: 'Action.OpenUrl', title: words.openWorkbook, url: message.workbookUrl, style: 'positive' },
    message.freshCopyUrl && { type: 'Action.OpenUrl', title: words.freshCopy, url: message.freshCopyUrl },
  ].filter((a) => typeof a === 'object');
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: ADAPTIVE_CARD_VERSION,
    // What a client that cannot draw the card, and the notification, show: the headline figures.
    fallbackText: `${message.title}: ${message.notification}`,
    body,
    ...(actions.length > 0 && { actions }),
    msteams: { width: 'Full' },
  };
}

export function teamsPayload(message: ChannelMessage): { type: 'message'; attachments: Element[] } {
  return { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, contentUrl: null, content: adaptiveCard(message) }] };
}

/** Lines on one card: an alert is read on a phone. */
const MAX_ALERT_LINES = 15;

/** A Teams message whose Adaptive Card names each line crossed: the rule's figure as the fact's title, its value and line as the value. */
export function teamsAlertPayload(message: AlertMessage): { type: 'message'; attachments: Record<string, unknown>[] } {
  const shown = message.lines.slice(0, MAX_ALERT_LINES);
  const more = message.lines.length - shown.length;
  const words = wordsOf(message);
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: ADAPTIVE_CARD_VERSION,
    body: [
      text(teamsEscape(message.title), { size: 'Large', weight: 'Bolder' }),
      text(teamsEscape(words.generated(message.generated)), { isSubtle: true, spacing: 'None' }),
      text(teamsEscape(words.linesCrossed), { weight: 'Bolder', spacing: 'Medium' }),
      { type: 'FactSet', facts: shown.map((l) => ({ title: teamsEscape(l.rule), value: teamsEscape(l.text) })) },
      ...(more > 0 ? [text(teamsEscape(words.more(more, false)), { isSubtle: true })] : []),
      text(teamsEscape(words.run(message.runId)), { isSubtle: true, size: 'Small' }),
    ],
    ...(message.workbookUrl && { actions: [{ type: 'Action.OpenUrl', title: words.openWorkbook, url: message.workbookUrl, style: 'positive' }] }),
    msteams: { width: 'Full' },
  };
  return { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, contentUrl: null, content: card }] };
}

export const teamsChannel: Channel = { type: 'teams', label: 'Microsoft Teams', payload: teamsPayload, alertPayload: teamsAlertPayload };
