import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { LEDGER_PARTITION_KEY } from '../../shared/ledger/dynamodb-ledger';

export interface DynaliteHandle {
  /** e.g. http://127.0.0.1:53122 (AWS_ENDPOINT_URL_DYNAMODB) */
  readonly endpoint: string;
  readonly tableName: string;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
}

/**
 * Starts dynalite (DynamoDB on LevelDB, in memory; it enforces ConditionExpression) on a free port
 * and creates the ledger table with the key schema the stack deploys.
 */
export async function startDynalite(options: { tableName?: string; port?: number } = {}): Promise<DynaliteHandle> {
  const tableName = options.tableName ?? 'run-ledger';
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  // As for s3rver (s3rver.ts): Node's 5 s keep-alive timeout races a client's reuse of a socket idle
  // that long (a run's ledger client waits while the run fetches): ECONNRESET. close() ends idle sockets.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'DYNALITE', secretAccessKey: 'DYNALITE' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: LEDGER_PARTITION_KEY, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: LEDGER_PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  return {
    endpoint,
    tableName,
    client,
    close: async () => {
      client.destroy();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
