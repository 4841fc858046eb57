import * as z from 'zod';
import { CredentialsError } from '../core/errors';
import { jsonErrorPlace, stripBom } from '../core/text';
import { credentialsSchema, type Credentials } from '../planning-api/credentials';
import { linkKeySetSchema, toVerificationKeys, type LinkVerificationKeys } from '../links/link-token';

/**
 * Parsing of secret documents (Secrets Manager values and local credential files). Messages name
 * the document and the field, never a value: neither JSON.parse's SyntaxError (Node quotes the
 * input in it) nor the ZodError is attached as `cause`, because both can carry the secret.
 *
 * `label` says where the document came from, e.g. `secret "prod/planning-api"` or
 * `credentials file "./creds.json"`.
 */
export function parseSecretDocument<S extends z.ZodType>(text: string, schema: S, label: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch {
    // The place only: the parser's words may quote the document.
    const place = jsonErrorPlace(stripBom(text));
    throw new CredentialsError(`${label} is not JSON${place ? ` (the first error at ${place})` : ''}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CredentialsError(`${label} is not a JSON object`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;

  const missing: string[] = [];
  const invalid: string[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path.map(String).join('.');
    if (path === '') invalid.push(issue.message);
    else if (isMissing(value, issue.path)) {
      if (!missing.includes(path)) missing.push(path);
    } else invalid.push(`${path}: ${issue.message}`);
  }
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`is missing field${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (invalid.length > 0) parts.push(`has invalid field${invalid.length > 1 ? 's' : ''} ${invalid.join('; ')}`);
  throw new CredentialsError(`${label} ${parts.join(' and ')}`);
}

/**
 * Parses the planning API credentials secret (JSON, a byte-order mark allowed). Throws a
 * CredentialsError that names the missing or invalid fields (never their values) and `label`.
 */
export function parseCredentialsDocument(text: string, label: string): Credentials {
  const credentials = parseSecretDocument(text, credentialsSchema, label);
  // Parsed a second time only to collect every string value (the schema drops unknown fields), so
  // the client can redact all of them from error texts. The text parsed once already, so this cannot throw.
  // Not enumerable: kept out of spreads, JSON and logs, like the key should be.
  // The fields messages must name stay out: the company prefix, the addresses and the user's e-mail are
  // what a person checks when a call fails (only the key, and whatever else the document holds, is secret).
  const shown = new Set([credentials.email, credentials.baseUrl, credentials.legacyBaseUrl, credentials.companyPrefix]);
  return Object.defineProperty(credentials, 'documentValues', {
    value: stringValues(JSON.parse(stripBom(text))).filter((value) => !shown.has(value) || value === credentials.apiKey),
    enumerable: false,
  });
}

function stringValues(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringValues(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringValues(item, out);
  return out;
}

/** Parses the link-signing keys secret (current key, optional previous one) into verification keys; errors as above. */
export function parseLinkKeysDocument(text: string, label: string): LinkVerificationKeys {
  return toVerificationKeys(parseSecretDocument(text, linkKeySetSchema, label));
}

/** Absent, null and empty strings all read as "missing" to the person filling in the secret. */
function isMissing(root: unknown, path: readonly PropertyKey[]): boolean {
  let node: unknown = root;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null) return true;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node === undefined || node === null || (typeof node === 'string' && node.trim() === '');
}

/**
 * A webhook secret: a JSON object whose fields are incoming-webhook URLs. Only https is accepted,
 * except plain http to this machine (the local stack's recording servers).
 */
const webhookUrl = z
  .string()
  .refine((s) => /^https:\/\/[^\s/]+\/\S*$/.test(s) || /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/\S*$/.test(s), 'must be an https URL');
const webhookDocumentSchema = z.record(z.string(), z.unknown());

export function parseWebhookDocument(text: string, label: string): Readonly<Record<string, unknown>> {
  return parseSecretDocument(text, webhookDocumentSchema, label);
}

/** The URL in field `key` of a webhook secret; errors name the secret and the field, never a value. */
export function webhookUrlOf(document: Readonly<Record<string, unknown>>, key: string, label: string): string {
  const value = document[key];
  if (value === undefined || value === null || value === '') throw new CredentialsError(`${label} has no field "${key}"`);
  if (!webhookUrl.safeParse(value).success) throw new CredentialsError(`${label} field "${key}" is not an https webhook URL`);
  return value as string;
}
