/**
 * The link-key set of the local stack (test/support/lambda-harness.ts serves it from its Secrets
 * Manager stub): fixed and public, so `npm run link -- --local` can sign links the local stack
 * accepts. Never used by a deployed stack, which generates its own key (infra/constructs/exporter-secrets.ts).
 */
export const LOCAL_LINK_KEYS = {
  current: { id: 'k2', secret: 'b'.repeat(48) },
  previous: { id: 'k1', secret: 'a'.repeat(48) },
} as const;

/** Where the local HTTP API listens when started for `--local` links. */
export const LOCAL_API_URL = 'http://127.0.0.1:8787';

/** The one report the local stack serves (`npm run local`), as the demo exports it. */
export const LOCAL_STACK_REPORT_FILE = 'examples/demo-report.json';

/**
 * Where `npm run local` serves what the demo needs to reach: the HTTP API that its links open, the
 * S3 and DynamoDB stand-ins (s3rver, dynalite) its runs are written to with `npm run demo -- --local`,
 * and their bucket, prefix and table, the same the stack's functions read. One port decides them all
 * (LOCAL_STACK_PORT, default 8787: the API, then S3 and DynamoDB on the next two), so a test can run a
 * whole local stack beside a person's.
 */
export interface LocalStackAddress {
  readonly apiUrl: string;
  readonly apiPort: number;
  readonly s3Port: number;
  readonly dynamoDbPort: number;
  readonly reportsBucket: string;
  readonly reportsPrefix: string;
  readonly ledgerTable: string;
  /** s3rver's fixed key pair: the local stack's functions and the demo sign with it. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export const LOCAL_STACK_NAMES = { reportsBucket: 'reports-bucket', reportsPrefix: 'reports', ledgerTable: 'run-ledger' } as const;

export function localStackAddress(env: Readonly<Record<string, string | undefined>>): LocalStackAddress {
  const text = env.LOCAL_STACK_PORT;
  const apiPort = text === undefined || text === '' ? Number(new URL(LOCAL_API_URL).port) : Number(text);
  if (!Number.isInteger(apiPort) || apiPort < 1 || apiPort > 65_533) throw new Error(`LOCAL_STACK_PORT "${text}" is not a port from 1 to 65533`);
  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    apiPort,
    s3Port: apiPort + 1,
    dynamoDbPort: apiPort + 2,
    ...LOCAL_STACK_NAMES,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  };
}

/** The environment an AWS SDK client needs to reach the local stack's S3 and DynamoDB. */
export function localStackEnvironment(address: LocalStackAddress): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${address.s3Port}`,
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${address.dynamoDbPort}`,
    AWS_ACCESS_KEY_ID: address.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: address.credentials.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
}
