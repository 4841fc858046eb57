import type { AlertMessage } from './alert-message';
import { wordsOf } from './channel';
import { ADAPTIVE_CARD_CONTENT_TYPE, ADAPTIVE_CARD_VERSION, teamsEscape } from './teams';

/** Lines on one card: an alert is read on a phone. */
const MAX_LINES = 15;

/** A Teams message whose Adaptive Card names each line crossed: the rule's figure as the fact's title, its value and line as the value. */
export function teamsAlertPayload(message: AlertMessage): { type: 'message'; attachments: Record<string, unknown>[] } {
  const shown = message.lines.slice(0, MAX_LINES);
  const more = message.lines.length - shown.length;
  const words = wordsOf(message);
  const text = (value: string, extra: Record<string, unknown> = {}) => ({ type: 'TextBlock', text: value, wrap: true, ...extra });
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
