import { alertLineText, type AlertMessage } from '../channels/channel';
import { wordsOf } from '../channels/channel';
import { subjectLine } from '../email/email-content';
import { escapeHtml } from '../email/email-format';
import type { OutgoingEmail } from '../email/ses-mailer';

/**
 * The alert as an e-mail: the subject says what crossed (the inbox list is where it is read), the body
 * each line crossed, the workbook's link and, for one recipient, the way out (RFC 8058 one-click,
 * the same unsubscribe link as the report's e-mail: it pauses this report for that address).
 */
export interface AlertEmailOptions {
  readonly from: string;
  /** The recipient's unsubscribe link, when the links can be signed. */
  readonly unsubscribeUrl?: string | undefined;
}

const SUBJECT_MAX = 200;

export function alertEmail(message: AlertMessage, report: string, to: string, options: AlertEmailOptions): OutgoingEmail {
  const words = wordsOf(message);
  const first = message.lines[0];
  const crossed = first && (message.lines.length > 1 ? words.andMore(alertLineText(first, words), message.lines.length - 1) : alertLineText(first, words));
  // Risk titles reach the subject: cleaned of line breaks and control characters as the report's is.
  const subject = subjectLine(crossed ? words.labelled(message.title, crossed) : message.title, SUBJECT_MAX);
  const link = message.workbookUrl;
  const out = options.unsubscribeUrl;
  const text = [
    message.title,
    words.generated(message.generated),
    '',
    `${words.linesCrossed}:`,
    ...message.lines.map((l) => `- ${alertLineText(l, words)}`),
    '',
    ...(link ? [`${words.openWorkbook}: ${link}`, ''] : []),
    words.run(message.runId),
    ...(out ? ['', `${words.unsubscribe}: ${out}`] : []),
  ].join('\n');
  const html = [
    // The words' language, as the report's e-mail declares it (a screen reader reads them with its rules).
    `<!doctype html><html lang="${escapeHtml(words.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>`,
    '<body style="font-family:Segoe UI,Helvetica,Arial,sans-serif;color:#1a1a1a;max-width:640px">',
    `<h1 style="font-size:20px">${escapeHtml(message.title)}</h1>`,
    `<p style="color:#555">${escapeHtml(words.generated(message.generated))}</p>`,
    `<h2 style="font-size:16px">${escapeHtml(words.linesCrossed)}</h2>`,
    `<ul>${message.lines.map((l) => `<li><strong>${escapeHtml(l.rule)}</strong>: ${escapeHtml(l.text)}</li>`).join('')}</ul>`,
    ...(link ? [`<p><a href="${escapeHtml(link)}">${escapeHtml(words.openWorkbook)}</a></p>`] : []),
    `<p style="color:#555;font-size:12px">${escapeHtml(words.run(message.runId))}</p>`,
    ...(out ? [`<p style="color:#555;font-size:12px"><a href="${escapeHtml(out)}">${escapeHtml(words.unsubscribe)}</a></p>`] : []),
    '</body></html>',
  ].join('\n');
  return {
    from: options.from,
    to: [to],
    subject,
    html,
    text,
    ...(out && {
      headers: [
        { name: 'List-Unsubscribe', value: `<${out}>` },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
      ],
    }),
    tags: { report },
  };
}
