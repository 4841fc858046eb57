import type { OutgoingEmail } from './ses-mailer';

/**
 * The message as an RFC 5322 / MIME file (`.eml`) that mail clients open as if it had arrived: the
 * text and HTML parts (multipart/alternative) and any attachments (multipart/mixed), every part
 * base64 so no line is too long and no byte is mangled. The outbox writes it; SES builds its own
 * MIME from the same OutgoingEmail, so the parts, not the envelope, are what the two share.
 * Deterministic: the boundary and Date come from `date`, so the same run writes the same bytes.
 */
export function mimeMessage(email: OutgoingEmail, date: Date): string {
  const stamp = date.getTime().toString(36);
  const alternative = `alt-${stamp}`;
  const mixed = `mixed-${stamp}`;
  const attachments = email.attachments ?? [];
  const headers = [
    `From: ${encodeAddress(email.from)}`,
    `To: ${email.to.map(encodeAddress).join(', ')}`,
    ...(email.cc && email.cc.length > 0 ? [`Cc: ${email.cc.map(encodeAddress).join(', ')}`] : []),
    `Subject: ${encodeWord(email.subject)}`,
    `Date: ${date.toUTCString()}`,
    ...(email.headers ?? []).map((h) => `${h.name}: ${h.value}`),
    'MIME-Version: 1.0',
  ];
  const body = [
    `--${alternative}`,
    ...part('text/plain; charset=utf-8', email.text),
    `--${alternative}`,
    ...part('text/html; charset=utf-8', email.html),
    `--${alternative}--`,
  ];
  if (attachments.length === 0) {
    return [...headers, `Content-Type: multipart/alternative; boundary="${alternative}"`, '', ...body, ''].join('\r\n');
  }
  return [
    ...headers,
    `Content-Type: multipart/mixed; boundary="${mixed}"`,
    '',
    `--${mixed}`,
    `Content-Type: multipart/alternative; boundary="${alternative}"`,
    '',
    ...body,
    ...attachments.flatMap((a) => [
      `--${mixed}`,
      ...part(`${a.contentType}; name="${a.fileName}"`, a.content, `Content-Disposition: attachment; filename="${a.fileName}"`),
    ]),
    `--${mixed}--`,
    '',
  ].join('\r\n');
}

function part(contentType: string, content: string | Uint8Array, ...extra: string[]): string[] {
  return [`Content-Type: ${contentType}`, 'Content-Transfer-Encoding: base64', ...extra, '', base64Lines(content)];
}

/** Base64 in lines of 76 characters (RFC 2045). */
function base64Lines(content: string | Uint8Array): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  return bytes.toString('base64').replace(/.{76}(?=.)/g, '$&\r\n');
}

/** A header text as an RFC 2047 encoded word when it is not plain ASCII. */
function encodeWord(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** `Name <a@b>` with the display name encoded where needed; a bare address as it is. */
function encodeAddress(address: string): string {
  const match = /^(.*?)\s*<([^>]+)>$/.exec(address);
  if (!match) return address;
  const name = match[1]!.replace(/^"(.*)"$/, '$1');
  if (name === '') return `<${match[2]!}>`;
  // RFC 5322 specials in a plain name need quotes; a non-ASCII name is an encoded word instead.
  const shown = /^[\x20-\x7e]*$/.test(name) && /[()<>[\]:;@\\,."]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : encodeWord(name);
  return `${shown} <${match[2]!}>`;
}
