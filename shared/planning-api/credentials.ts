import * as z from 'zod';

/**
 * The planning API credentials document: the JSON kept in Secrets Manager (or a local file for the
 * export command). `baseUrl` is the company's versioned address (paths /api/v1/...), `legacyBaseUrl`
 * the shared legacy address (paths /api/<companyPrefix>/...).
 */
export const credentialsSchema = z.object({
  email: z.string().min(1, 'email is required (the login e-mail of the API user)'),
  apiKey: z.string().min(1, 'apiKey is required (the API key of that user)'),
  baseUrl: z.url({ message: 'baseUrl must be an absolute URL such as https://acme.example.com' }),
  legacyBaseUrl: z.url({ message: 'legacyBaseUrl must be an absolute URL' }),
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
