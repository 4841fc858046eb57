import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { LOCAL_LINK_KEYS, LOCAL_STACK_NAMES } from '../../cli/local-link-keys';
import { lambdaContext } from './lambda-events';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { startEventBridgeStub, startLambdaStub } from './aws-stubs';
import { startDynalite, type DynaliteHandle } from './dynalite';
import { startS3rver, type S3rverHandle } from './s3rver';
import { startSecretsManagerStub, type SecretsManagerStub } from './secrets-manager-stub';
import { startSesLocal, type SesLocalHandle } from './ses-local';
import { DefinitionStore } from '../../shared/definitions/definition-store';
import type { StoredDefinition } from '../../shared/definitions/stored-definition';
import { S3Storage } from '../../shared/storage/s3-storage';
import { storedReports } from './door-settings';

type ExportHandler = (event: unknown, context: Context) => Promise<unknown>;
type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The local stack's key set: the one `npm run link -- --local` signs with. */
export const LINK_KEYS = LOCAL_LINK_KEYS;
export const API_BASE_URL = 'https://api.example.test';

/**
 * Everything the two Lambdas talk to, started on loopback: the planning API simulator, s3rver,
 * aws-ses-v2-local, a Secrets Manager stub, and EventBridge / Lambda stubs. The handler modules are
 * imported for real after the environment is set, exactly as the Lambda runtime would load them;
 * the Lambda stub runs the export handler in-process when the API invokes it asynchronously.
 */
export interface LambdaHarness {
  readonly sim: RunningSimulator;
  readonly s3: S3rverHandle;
  /** The run ledger's table (dynalite). */
  readonly dynamo: DynaliteHandle;
  readonly ses: SesLocalHandle;
  readonly secrets: SecretsManagerStub;
  readonly events: Awaited<ReturnType<typeof startEventBridgeStub>>;
  readonly lambda: Awaited<ReturnType<typeof startLambdaStub>>;
  readonly exportHandler: ExportHandler;
  readonly apiHandler: ApiHandler;
  /** The stored reports in the definitions bucket: put and remove them as the CLI would. */
  readonly definitions: DefinitionStore;
  close(): Promise<void>;
}

/** The harness's definitions bucket (on the same s3rver as the reports). */
export const DEFINITIONS_BUCKET = 'definitions-bucket';

export async function startLambdaHarness(
  definitions: Record<string, unknown>,
  options: {
    planningSecret?: (sim: RunningSimulator) => string;
    env?: Record<string, string>;
    tenant?: 'tiny' | 'demo';
    /** 'demo': the realistic tenant (`npm run local`); tests keep the test flavour's traps. */
    flavour?: 'test' | 'demo';
    /** A simulator the caller started and closes (a test comparing the demo with the Lambda serves both from one). */
    sim?: RunningSimulator;
    /** Fixed ports for S3 and DynamoDB (the local stack's, which `npm run demo -- --local` writes to); else free ones. */
    ports?: { readonly s3: number; readonly dynamoDb: number };
    /** Awaited before each invoked export runs: a test holds exports "running" until it lets them go. */
    beforeExport?: (payload: unknown) => Promise<void>;
  } = {},
): Promise<LambdaHarness> {
  const sim = options.sim ?? (await startSimulator({ tenant: options.tenant ?? 'tiny', ...(options.flavour && { flavour: options.flavour }) }));
  const closeSim = options.sim ? () => Promise.resolve() : () => sim.close();
  const s3 = await startS3rver({ bucket: LOCAL_STACK_NAMES.reportsBucket, otherBuckets: [DEFINITIONS_BUCKET], ...(options.ports && { port: options.ports.s3 }) });
  // The stored reports, as `npm run reports -- push` or the deploy would leave them.
  const definitionStore = storedReports(new S3Storage({ client: s3.client, bucket: DEFINITIONS_BUCKET, prefix: '' }));
  for (const definition of Object.values(definitions)) {
    await definitionStore.put({ definition: definition as StoredDefinition['definition'], schedule: null });
  }
  const dynamo = await startDynalite({ tableName: LOCAL_STACK_NAMES.ledgerTable, ...(options.ports && { port: options.ports.dynamoDb }) });
  const ses = await startSesLocal();
  const secrets = await startSecretsManagerStub({
    'planning/credentials': options.planningSecret?.(sim) ?? JSON.stringify(sim.credentials()),
    'planning/link-keys': JSON.stringify(LINK_KEYS),
  });
  const events = await startEventBridgeStub();
  const handlers: { export?: ExportHandler } = {};
  const lambda = await startLambdaStub(async (_name, payload) => {
    await options.beforeExport?.(payload);
    return handlers.export!(payload, lambdaContext('export-report'));
  });

  const env: Record<string, string> = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_SESV2: ses.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_MAX_ATTEMPTS: '1',
    REPORTS_BUCKET: s3.bucket,
    REPORTS_PREFIX: LOCAL_STACK_NAMES.reportsPrefix,
    LEDGER_TABLE: dynamo.tableName,
    PLANNING_SECRET_ID: 'planning/credentials',
    LINK_KEY_SECRET_ID: 'planning/link-keys',
    LINK_BASE_URL: API_BASE_URL,
    EVENT_BUS_NAME: 'default',
    MAIL_FROM: 'reports@example.test',
    EXPORT_FUNCTION_NAME: 'export-report',
    DEFINITIONS_BUCKET,
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    ...options.env,
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  // Fresh handler modules per harness under vitest; `npm run local` (scripts/local-stack.ts) runs outside it.
  if (process.env.VITEST) (await import('vitest')).vi.resetModules();
  const exportHandler: ExportHandler = (await import('../../lambdas/export-report/handler')).handler;
  const apiHandler: ApiHandler = (await import('../../lambdas/export-api/handler')).handler;
  handlers.export = exportHandler;

  return {
    sim, s3, dynamo, ses, secrets, events, lambda, exportHandler, apiHandler, definitions: definitionStore,
    async close() {
      await lambda.settled();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await Promise.all([closeSim(), s3.close(), dynamo.close(), ses.close(), secrets.close(), events.close(), lambda.close()]);
    },
  };
}
