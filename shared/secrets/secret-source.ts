import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { CredentialsError, transientAwsFailure } from '../core/errors';
import type { LinkVerificationKeys } from '../links/link-token';
import type { Credentials } from '../planning-api/credentials';
import type { CredentialsSource } from './credential-refresh';
import { parseCredentialsDocument, parseLinkKeysDocument, parseWebhookDocument, webhookUrlOf } from './secret-document';


export interface SecretSourceOptions {
  /** Name or ARN of the secret. */
  readonly secretId: string;
  readonly client?: SecretsManagerClient;
  /**
   * How long a value is reused without asking Secrets Manager. Bounded so a rotated key is picked
   * up within minutes even without a 401, and so warm Lambdas do not call the API per invocation.
   * The door's resolved SECRET_MAX_AGE_SECONDS.
   */
  readonly maxAgeSeconds: number;
}

/**
 * Reads one JSON secret through the Powertools SecretsProvider (which caches per instance) and
 * turns every failure into a CredentialsError naming the secret, never its value.
 */
class SecretJsonReader<T> {
  private readonly provider: SecretsProvider;
  private readonly label: string;

  constructor(
    private readonly options: SecretSourceOptions,
    private readonly parse: (text: string, label: string) => T,
  ) {
    this.provider = new SecretsProvider({ awsSdkV3Client: options.client ?? new SecretsManagerClient({}) });
    this.label = `secret "${options.secretId}"`;
  }

  async read(forceFetch: boolean): Promise<T> {
    let value: unknown;
    try {
      value = await this.provider.get(this.options.secretId, {
        maxAge: this.options.maxAgeSeconds,
        forceFetch,
      });
    } catch (error) {
      throw this.readError(error);
    }
    let text: string;
    if (typeof value === 'string') text = value;
    else if (value instanceof Uint8Array) text = Buffer.from(value).toString('utf8');
    else throw new CredentialsError(`${this.label} has no value`);
    return this.parse(text, this.label);
  }

  private readError(error: unknown): CredentialsError {
    // Powertools wraps SDK errors in GetParameterError; the SDK error is its cause.
    const sdkError = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const name = sdkError instanceof Error ? sdkError.name : undefined;
    if (name === 'ResourceNotFoundException') {
      return new CredentialsError(`${this.label} was not found`, { cause: error });
    }
    const detail = sdkError instanceof Error ? `${sdkError.name}: ${sdkError.message}` : String(sdkError);
    return new CredentialsError(`could not read ${this.label}: ${detail}`, { cause: error, retryable: transientAwsFailure(sdkError) });
  }
}

/** The planning API credentials from Secrets Manager (the Lambdas). */
export class SecretsManagerCredentialsSource implements CredentialsSource {
  private readonly reader: SecretJsonReader<Credentials>;

  constructor(options: SecretSourceOptions) {
    this.reader = new SecretJsonReader(options, parseCredentialsDocument);
  }

  getCredentials(options: { forceFetch?: boolean } = {}): Promise<Credentials> {
    return this.reader.read(options.forceFetch ?? false);
  }
}

/** The link-signing keys `{ current, previous? }` from Secrets Manager. */
export class SecretsManagerLinkKeySource {
  private readonly reader: SecretJsonReader<LinkVerificationKeys>;

  constructor(options: SecretSourceOptions) {
    this.reader = new SecretJsonReader(options, parseLinkKeysDocument);
  }

  getKeys(options: { forceFetch?: boolean } = {}): Promise<LinkVerificationKeys> {
    return this.reader.read(options.forceFetch ?? false);
  }
}

/**
 * Incoming-webhook URLs of chat channels, from the secrets a definition names (`{ secretId, key }`).
 * One cached reader per secret; the URL is returned to the poster and nowhere else.
 */
export class SecretsManagerWebhookSource {
  private readonly readers = new Map<string, SecretJsonReader<Readonly<Record<string, unknown>>>>();

  constructor(private readonly options: Omit<SecretSourceOptions, 'secretId'>) {}

  async webhookUrl(ref: { readonly secretId: string; readonly key: string }): Promise<string> {
    let reader = this.readers.get(ref.secretId);
    if (!reader) {
      reader = new SecretJsonReader({ ...this.options, secretId: ref.secretId }, parseWebhookDocument);
      this.readers.set(ref.secretId, reader);
    }
    const cached = await reader.read(false);
    // A field missing from the cached value may have been added since: read past the cache once.
    const document = ref.key in cached ? cached : await reader.read(true);
    return webhookUrlOf(document, ref.key, `secret "${ref.secretId}"`);
  }
}

/** The Secrets Manager client the adapters use by default; the handler builds one to share and instrument. */
export function createSecretsManagerClient(): SecretsManagerClient {
  return new SecretsManagerClient({});
}
