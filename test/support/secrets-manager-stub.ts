import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface SecretsManagerStub {
  /** e.g. http://127.0.0.1:53122 */
  readonly endpoint: string;
  /** A real SDK client pointed at the stub (fake credentials, no retries to keep tests fast). */
  readonly client: SecretsManagerClient;
  /** Sets (or replaces, to simulate rotation) the SecretString of a secret. */
  setSecret(secretId: string, value: string): void;
  deleteSecret(secretId: string): void;
  /** GetSecretValue requests received, per secret id. */
  calls(secretId?: string): number;
  resetCalls(): void;
  /** Makes the next n requests fail with a 500 InternalServiceError. */
  failNext(n: number): void;
  close(): Promise<void>;
}

/**
 * A tiny Secrets Manager: the `GetSecretValue` operation of its JSON 1.1 protocol over node:http.
 * Unknown secrets answer like the real service, 400 with `ResourceNotFoundException`.
 */
export async function startSecretsManagerStub(initial: Record<string, string> = {}): Promise<SecretsManagerStub> {
  const secrets = new Map<string, { value: string; version: number }>();
  const counts = new Map<string, number>();
  let failures = 0;
  const setSecret = (id: string, value: string): void => {
    secrets.set(id, { value, version: (secrets.get(id)?.version ?? 0) + 1 });
  };
  for (const [id, value] of Object.entries(initial)) setSecret(id, value);

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = req.headers['x-amz-target'];
    if (req.method !== 'POST' || target !== 'secretsmanager.GetSecretValue') {
      send(res, 400, { __type: 'UnknownOperationException', message: `unsupported: ${String(target)}` });
      return;
    }
    let secretId: unknown;
    try {
      secretId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: unknown }).SecretId;
    } catch {
      send(res, 400, { __type: 'InvalidRequestException', message: 'body is not JSON' });
      return;
    }
    if (typeof secretId !== 'string') {
      send(res, 400, { __type: 'InvalidParameterException', message: 'SecretId is required' });
      return;
    }
    counts.set(secretId, (counts.get(secretId) ?? 0) + 1);
    if (failures > 0) {
      failures -= 1;
      send(res, 500, { __type: 'InternalServiceError', message: 'stub failure' });
      return;
    }
    const secret = secrets.get(secretId);
    if (secret === undefined) {
      send(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    send(res, 200, {
      ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${secretId}-AbCdEf`,
      Name: secretId,
      SecretString: secret.value,
      VersionId: `00000000-0000-4000-8000-${String(secret.version).padStart(12, '0')}`,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Date.now() / 1000,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { __type: 'InternalServiceError', message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new SecretsManagerClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDSTUB', secretAccessKey: 'stub-secret-access-key' },
    maxAttempts: 1,
  });
  return {
    endpoint,
    client,
    setSecret,
    deleteSecret: (id) => void secrets.delete(id),
    calls: (id) => (id === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(id) ?? 0)),
    resetCalls: () => counts.clear(),
    failNext: (n) => void (failures = n),
    close: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
