import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretReader } from './ports';
import { awsReadError } from './read-error';

/** A Secrets Manager client for a region, at a local stand-in's endpoint in tests. */
export function createSecretsManagerReaderClient(region: string, endpoint?: string): SecretsManagerClient {
  return new SecretsManagerClient({ region, ...(endpoint !== undefined && { endpoint }) });
}

/**
 * The current text of a secret, read once and never cached (shared/secrets caches for the Lambdas;
 * preflight wants what is stored now, and tells a missing secret from an unreadable one).
 */
export class SecretsManagerSecretReader implements SecretReader {
  constructor(private readonly client: SecretsManagerClient = new SecretsManagerClient({})) {}

  async read(secretId: string): Promise<string | undefined> {
    try {
      const answer = await this.client.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (answer.SecretString !== undefined) return answer.SecretString;
      return answer.SecretBinary ? Buffer.from(answer.SecretBinary).toString('utf8') : '';
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw awsReadError('secretsmanager:GetSecretValue', error);
    }
  }
}
