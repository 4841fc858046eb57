import { alertLineText, clip, wordsOf, type AlertMessage, type AttentionLine, type Channel, type ChannelMessage, type ChannelWords } from './channel';

/**
 * Slack incoming webhook: a Block Kit message. Slack refuses a message with more than 50 blocks or a
 * text object over 3,000 characters (header text: 150, button text: 75), so every text is cut to its
 * limit here and the attention list stops at a line boundary with "… more in the workbook".
 */
export const SLACK_LIMITS = { blocks: 50, text: 3000, header: 150, button: 75, url: 3000 } as const;

type Block = Readonly<Record<string, unknown>>;

/** Slack's mrkdwn treats these three as control characters; everything else is shown as typed. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An item linked to it in the planning tool (`<url|text>`; the text may not hold `|`), or plain text. */
function attentionText(line: AttentionLine): string {
  if (line.url === undefined || line.url.length > SLACK_LIMITS.url / 2 || /[<>|\s]/.test(line.url)) return slackEscape(line.text);
  return `<${line.url}|${slackEscape(line.text).replace(/\|/g, '¦')}>`;
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: clip(text, SLACK_LIMITS.text) });
const section = (text: string): Block => ({ type: 'section', text: mrkdwn(text) });

/** Lines joined up to the limit; what does not fit is counted in a last line. */
function fitLines(heading: string, lines: readonly string[], more: number, limit: number, words: ChannelWords): string {
  let text = heading;
  let shown = 0;
  for (const line of lines) {
    const tail = `\n${words.more(lines.length - shown - 1 + more, true)}`;
    if (text.length + 1 + line.length + tail.length > limit) break;
    text += `\n${line}`;
    shown += 1;
  }
  const rest = lines.length - shown + more;
  return rest > 0 ? `${text}\n${words.more(rest, true)}` : text;
}

function buttons(message: ChannelMessage, words: ChannelWords): Block | undefined {
  const elements = [
    message.workbookUrl && { text: words.openWorkbook, url: message.workbookUrl, style: 'primary', id: 'open-workbook' },
    message.freshCopyUrl && { text: words.freshCopy, url: message.freshCopyUrl, id: 'fresh-copy' },
  ]
    .filter((b) => typeof b === 'object')
    .filter((b) => b.url.length <= SLACK_LIMITS.url)
    .map((b) => ({
      type: 'button',
      action_id: b.id,
      text: { type: 'plain_text', text: clip(b.text, SLACK_LIMITS.button) },
      url: b.url,
      ...(b.style && { style: b.style }),
    }));
  return elements.length > 0 ? { type: 'actions', elements } : undefined;
}

export function slackPayload(message: ChannelMessage): { text: string; blocks: Block[] } {
  const words = wordsOf(message);
  const top: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(message.title, SLACK_LIMITS.header) } },
    // The date the changes in brackets are since, said once beside the run's own.
    { type: 'context', elements: [words.generated(message.generated), ...(message.changesSince ? [message.changesSince] : [])].map((t) => mrkdwn(slackEscape(t))) },
  ];
  const changes = message.changes && section(fitLines(`*${slackEscape(message.changes.heading)}*`, message.changes.lines.map(attentionText), 0, SLACK_LIMITS.text, words));
  const attention =
    message.attention.length + message.attentionMore > 0
      ? section(fitLines(`*${slackEscape(words.needsAttention)}*`, message.attention.map((l) => `• ${attentionText(l)}`), message.attentionMore, SLACK_LIMITS.text, words))
      : section(`*${slackEscape(words.needsAttention)}*\n${slackEscape(words.nothingNeedsAttention)}.`);
  const actions = buttons(message, words);
  // In the order of every surface: the headline figures, what needs attention, what changed.
  const bottom: Block[] = [
    attention,
    ...(changes ? [changes] : []),
    ...(actions ? [actions] : []),
    { type: 'context', elements: [mrkdwn(slackEscape(words.run(message.runId)))] },
  ];
  // Headline sections fill what is left of the 50 blocks; the rest are in the workbook.
  const room = SLACK_LIMITS.blocks - top.length - bottom.length;
  const headline = message.headline.slice(0, room).map((s) =>
    section(fitLines(`*${slackEscape(s.heading)}*`, s.figures.map((f) => words.labelled(slackEscape(f.label), `*${slackEscape(f.value)}*`)), 0, SLACK_LIMITS.text, words)),
  );
  // The notification and the fallback: the headline figures, not the change counts.
  return { text: clip(slackEscape(`${message.title}: ${message.notification}`), SLACK_LIMITS.text), blocks: [...top, ...headline, ...bottom] };
}

/** Slack's Block Kit for an alert: a header, one section per line crossed (within Slack's limits), the workbook's button. */
export function slackAlertPayload(message: AlertMessage): { text: string; blocks: Record<string, unknown>[] } {
  const words = wordsOf(message);
  // Header, context, button and run id leave the rest of the 50 blocks to the lines.
  const room = SLACK_LIMITS.blocks - 4;
  const shown = message.lines.slice(0, room);
  const more = message.lines.length - shown.length;
  const lines = shown.map((l, i) => ({
    type: 'section',
    text: mrkdwn(`${words.labelled(`*${slackEscape(l.rule)}*`, slackEscape(l.text))}${i === shown.length - 1 && more > 0 ? `\n${slackEscape(words.more(more, false))}` : ''}`),
  }));
  const button = message.workbookUrl && message.workbookUrl.length <= SLACK_LIMITS.url
    ? [{ type: 'actions', elements: [{ type: 'button', action_id: 'open-workbook', text: { type: 'plain_text', text: words.openWorkbook }, url: message.workbookUrl }] }]
    : [];
  const first = message.lines[0];
  // The notification's text is what crossed, not only that something did.
  const crossed = first && (message.lines.length > 1 ? words.andMore(alertLineText(first, words), message.lines.length - 1) : alertLineText(first, words));
  const summary = crossed ? words.labelled(message.title, crossed) : message.title;
  return {
    text: clip(slackEscape(summary), SLACK_LIMITS.text),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(message.title, SLACK_LIMITS.header) } },
      { type: 'context', elements: [mrkdwn(slackEscape(words.generated(message.generated)))] },
      ...lines,
      ...button,
      { type: 'context', elements: [mrkdwn(slackEscape(words.run(message.runId)))] },
    ],
  };
}

export const slackChannel: Channel = { type: 'slack', label: 'Slack', payload: slackPayload, alertPayload: slackAlertPayload };
