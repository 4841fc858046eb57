import * as z from 'zod';

/** A path the client adds itself: `/api` and what follows (`/api/v1`, `/api/acme`). */
const API_PATH = /\/api(\/[^/]*)?\/*$/i;

/** The fix of an address that already holds the path the client puts after it. */
function addedPath(field: string, url: string, paths: string): string {
  const fixed = url.replace(API_PATH, '');
  return `${field} ${url} ends in ${url.slice(fixed.length)}, which the client adds itself (${paths}): set ${field} to ${fixed}`;
}

/**
 * The planning API credentials document: the JSON kept in Secrets Manager (or a local file for the
 * export command). `baseUrl` is the company's versioned address (paths /api/v1/...), `legacyBaseUrl`
 * the shared legacy address (paths /api/<companyPrefix>/...).
 */
export const credentialsSchema = z.object({
  email: z.string().min(1, 'email is required (the login e-mail of the API user)'),
  apiKey: z.string().min(1, 'apiKey is required (the API key of that user)'),
  baseUrl: z
    .url({ message: 'baseUrl must be an absolute URL such as https://acme.example.com' })
    .refine((url) => !API_PATH.test(url), { error: (issue) => addedPath('baseUrl', String(issue.input), '/api/v1/…') }),
  legacyBaseUrl: z
    .url({ message: 'legacyBaseUrl must be an absolute URL' })
    .refine((url) => !API_PATH.test(url), { error: (issue) => addedPath('legacyBaseUrl', String(issue.input), '/api/<companyPrefix>/…') }),
  companyPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'companyPrefix must be the company prefix (letters, digits, - and _)'),
});

export type Credentials = z.infer<typeof credentialsSchema> & {
  /**
   * Every string value of the document the credentials came from (also fields this schema does not
   * know), so that error texts can be redacted of all of them, not only of the key.
   */
  readonly documentValues?: readonly string[];
};

/** The credentials without the key: safe to log and to put into a manifest. */
export function describeSource(credentials: Credentials): {
  baseUrl: string;
  legacyBaseUrl: string;
  companyPrefix: string;
  email: string;
} {
  return {
    baseUrl: credentials.baseUrl,
    legacyBaseUrl: credentials.legacyBaseUrl,
    companyPrefix: credentials.companyPrefix,
    email: credentials.email,
  };
}
