import * as z from 'zod';

/**
 * One plain e-mail address (no display name, no list): what SES accepts in Destination and what a
 * report definition may name. Kept free of the SES client so the definition can import it.
 *
 * SES takes 7-bit addresses only (no SMTPUTF8: an internationalised domain is written in punycode),
 * so every character outside printable ASCII is refused by name: a NUL or another control character,
 * DEL, a zero-width space, a right-to-left override, a byte-order mark, a lone surrogate, a
 * full-width `＠`. Such an address would be written raw into a `To:` header, shown reordered or
 * invisible to the owners, or refused by SES at send time, every week. Angle brackets, quotes,
 * commas, semicolons and whitespace are refused, so a value cannot smuggle a second recipient or a
 * header. The local part follows RFC 5321's dot-atom: at most 64 characters, no dot first, last or
 * twice in a row.
 */
export const emailAddress = z
  .string()
  .trim()
  .superRefine((address, ctx) => {
    const problem = emailAddressProblem(address);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

const MAX_ADDRESS = 254;
const MAX_LOCAL_PART = 64;
const PLAIN = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;

/** Why SES would not take `address`: the rule, naming the address (shown escaped); undefined when it would. */
export function emailAddressProblem(address: string): string | undefined {
  const shown = visibleAddress(address);
  const refused = firstRefusedCharacter(address);
  if (refused !== undefined) {
    return `must be a plain e-mail address: ${shown} has ${refused.name} (U+${refused.code}) at character ${refused.at}, and SES takes printable ASCII only (write an international domain in punycode)`;
  }
  if (address.length > MAX_ADDRESS) return `must be at most ${MAX_ADDRESS} characters: ${shown} has ${address.length}`;
  if (!PLAIN.test(address)) return `must be a plain e-mail address like team@example.com, not ${shown}`;
  const local = address.slice(0, address.indexOf('@'));
  if (local.length > MAX_LOCAL_PART) return `must have at most ${MAX_LOCAL_PART} characters before the @: ${shown} has ${local.length}`;
  if (local.startsWith('.') || local.endsWith('.')) return `must not start or end with a dot before the @: ${shown}`;
  if (local.includes('..')) return `must not have two dots in a row before the @: ${shown}`;
  const domain = address.slice(address.indexOf('@') + 1);
  if (domain.split('.').some((label) => label === '')) return `must not have a dot first, last or twice in a row in its domain: ${shown}`;
  return domainLabelProblem(domain, shown);
}

const MAX_LABEL = 63;
const LABEL_CHARACTERS = /^[A-Za-z0-9-]+$/;

/**
 * Each dot-separated part (label) of the domain as DNS takes it (RFC 1035, RFC 5321's sub-domain):
 * 1 to 63 letters, digits and hyphens, no hyphen first or last. A domain that breaks it cannot be
 * resolved, so mail to it bounces at send time every week instead of being refused here once.
 */
function domainLabelProblem(domain: string, shown: string): string | undefined {
  for (const label of domain.split('.')) {
    if (label.length > MAX_LABEL) {
      return `must have at most ${MAX_LABEL} characters in each dot-separated part of its domain: ${shown} has a part of ${label.length}`;
    }
    if (!LABEL_CHARACTERS.test(label)) {
      const character = [...label].find((c) => !LABEL_CHARACTERS.test(c)) ?? '';
      return `must have only letters, digits and hyphens in each dot-separated part of its domain: ${shown} has "${character}" in "${label}"`;
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return `must not start or end a dot-separated part of its domain with a hyphen: ${shown} has "${label}"`;
    }
  }
  return undefined;
}

/**
 * An address as people may read it in an error or a notice: quoted, with every character outside
 * printable ASCII written as `\uXXXX`, so nothing is invisible, reordered or a control character.
 */
export function visibleAddress(address: string): string {
  let shown = '';
  for (let i = 0; i < address.length; i++) {
    const code = address.charCodeAt(i);
    shown += code >= 0x20 && code < 0x7f && address[i] !== '"' && address[i] !== '\\' ? address[i] : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `"${shown}"`;
}

/** Names of the characters people meet in addresses copied from documents; the rest by their class. */
const NAMED: Readonly<Record<number, string>> = {
  0x00: 'a NUL',
  0x7f: 'DEL',
  0x200b: 'a zero-width space',
  0x200c: 'a zero-width non-joiner',
  0x200d: 'a zero-width joiner',
  0x2060: 'a word joiner',
  0xfeff: 'a byte-order mark',
  0x202e: 'a right-to-left override',
  0x202d: 'a left-to-right override',
  0xff20: 'a full-width ＠',
};

function firstRefusedCharacter(address: string): { name: string; code: string; at: number } | undefined {
  for (let i = 0; i < address.length; i++) {
    const code = address.charCodeAt(i);
    if (code > 0x20 && code < 0x7f) continue;
    // A space is refused by the plain-address rule with the other separators.
    if (code === 0x20) continue;
    return { name: characterName(address, i), code: code.toString(16).toUpperCase().padStart(4, '0'), at: i + 1 };
  }
  return undefined;
}

function characterName(address: string, i: number): string {
  const code = address.charCodeAt(i);
  const named = NAMED[code];
  if (named !== undefined) return named;
  if (code < 0x20 || (code >= 0x80 && code < 0xa0)) return 'a control character';
  if (code >= 0xd800 && code <= 0xdfff) {
    const pair = code <= 0xdbff ? address.charCodeAt(i + 1) : address.charCodeAt(i - 1);
    const paired = code <= 0xdbff ? pair >= 0xdc00 && pair <= 0xdfff : pair >= 0xd800 && pair <= 0xdbff;
    return paired ? 'a character outside ASCII' : 'a lone surrogate';
  }
  if ((code >= 0x200e && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return 'a bidirectional control';
  return 'a character outside ASCII';
}

/** A recipient of a report's e-mail as its definition names it: a plain address, or one with its own locale and planning-tool person. */
export type Recipient = string | { readonly address: string; readonly locale?: string | undefined; readonly person?: string | undefined };

/** The address of a recipient, however it is named. */
export function recipientAddress(recipient: Recipient): string {
  return typeof recipient === 'string' ? recipient : recipient.address;
}
