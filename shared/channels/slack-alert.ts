import type { AlertMessage } from './alert-message';
import { clip, wordsOf } from './channel';
import { SLACK_LIMITS, slackEscape } from './slack';

/** Slack's Block Kit for an alert: a header, one section per line crossed (within Slack's limits), the workbook's button. */
export function slackAlertPayload(message: AlertMessage): { text: string; blocks: Record<string, unknown>[] } {
  const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: clip(text, SLACK_LIMITS.text) });
  const words = wordsOf(message);
  // Header, context, button and run id leave the rest of the 50 blocks to the lines.
  const room = SLACK_LIMITS.blocks - 4;
  const shown = message.lines.slice(0, room);
  const more = message.lines.length - shown.length;
  const lines = shown.map((l, i) => ({
    type: 'section',
    text: mrkdwn(`*${slackEscape(l.rule)}*: ${slackEscape(l.text)}${i === shown.length - 1 && more > 0 ? `\n${slackEscape(words.more(more, false))}` : ''}`),
  }));
  const button = message.workbookUrl && message.workbookUrl.length <= SLACK_LIMITS.url
    ? [{ type: 'actions', elements: [{ type: 'button', action_id: 'open-workbook', text: { type: 'plain_text', text: words.openWorkbook }, url: message.workbookUrl }] }]
    : [];
  const first = message.lines[0];
  // The notification's text is what crossed, not only that something did.
  const summary = first ? `${message.title}: ${first.rule}: ${first.text}${message.lines.length > 1 ? ` and ${message.lines.length - 1} more` : ''}` : message.title;
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
