import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { systemClock } from '../../shared/core/clock';
import { loadApiLambdaConfig } from '../../shared/core/config';
import { createApiRouter } from '../../shared/http/router';
import { RUN_LINK_STALE_MINUTES } from '../../shared/core/defaults';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { LedgerRunLinkLedger, RevocationCache } from '../../shared/http/run-link-ledger';
import { LambdaJobLauncher } from '../../shared/http/lambda-launcher';
import { inlinePolicy } from '../../shared/job/stages/resolve-definition';
import { createPresigner } from '../../shared/links/presign';
import { SecretsManagerLinkKeySource } from '../../shared/secrets/secret-source';
import { definitionStore, reportsStorage, s3Client, secretsClient, tableLedger } from '../adapters';
import { createPowertools, withLifecycle } from '../lifecycle';
import { bodilessReads } from '../middleware/bodiless-reads';
import { httpErrors } from '../middleware/http-errors';
import { httpRequestKeys } from '../middleware/http-request-keys';
import { runLinkRefusals } from '../middleware/run-link-refusals';

// Built once per container and reused by every invocation it serves.
const config = loadApiLambdaConfig(process.env);
const { logger, metrics, tracer } = createPowertools();
const s3 = s3Client(config, tracer);
const storage = reportsStorage(s3, config);
const presigner = createPresigner({ client: s3, bucket: config.REPORTS_BUCKET, prefix: config.REPORTS_PREFIX });
const linkKeys = new SecretsManagerLinkKeySource({
  secretId: config.LINK_KEY_SECRET_ID,
  client: secretsClient(tracer),
  maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS,
});
// Its SDK client is built by the first start (lambda-launcher.ts), traced as the others are.
const launcher = new LambdaJobLauncher({
  functionName: config.EXPORT_FUNCTION_NAME,
  instrument: (client) => tracer.captureAWSv3Client(client),
});
const inline = inlinePolicy(config);
// The reports live in the definitions bucket, read per run through a short cache: an upload
// reaches the next run without a deploy, and no definition sits in the environment.
const definitions = definitionStore(s3, config);
const ledger = tableLedger(config, tracer);
const jobs = new JobStatusStore(ledger);
// Run links share the run ledger: one export per report, starts per token and revocation are
// conditional writes on the same table.
const runLinkLedger = new LedgerRunLinkLedger(ledger);
const revocations = new RevocationCache(runLinkLedger, systemClock);
const runLinks = {
  ledger: runLinkLedger,
  isRevoked: revocations.isRevoked,
  reuseMinutes: config.RUN_LINK_REUSE_MINUTES,
  startLimit: { limit: config.RUN_LINK_STARTS_PER_HOUR, windowMs: 3_600_000 },
  staleAfterMs: RUN_LINK_STALE_MINUTES * 60_000,
};

const api = createApiRouter({
  clock: systemClock,
  definitions,
  inline,
  jobs,
  launcher,
  storage,
  presign: presigner.presignGet,
  linkKeys: () => linkKeys.getKeys(),
  apiBaseUrl: config.LINK_BASE_URL,
  log: logger,
  runLinks,
  suppressions: ledger,
});

/** API Gateway HTTP API (payload format 2.0) → the export API's router. */
export const handler = withLifecycle(
  { logger, metrics, tracer },
  (event: APIGatewayProxyEventV2, context): Promise<APIGatewayProxyStructuredResultV2> => api.resolve(event, context),
  [httpRequestKeys(logger), bodilessReads(), runLinkRefusals(metrics), httpErrors(logger)],
);
