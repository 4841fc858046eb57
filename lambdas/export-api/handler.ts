import { Tracer } from '@aws-lambda-powertools/tracer';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createS3Client } from '../../shared/aws-clients';
import { loadApiLambdaConfig } from '../../shared/config';
import { LambdaJobLauncher } from '../../shared/delivery/lambda-launcher';
import { createPresigner } from '../../shared/delivery/presign';
import { S3Storage } from '../../shared/delivery/s3-storage';
import { handleApiRequest } from '../../shared/jobs/export-api';
import { JobStatusStore } from '../../shared/jobs/job-status';
import { parseConfiguredDefinitions } from '../../shared/jobs/resolve-definition';
import { createLogger } from '../../shared/logger';
import { SecretsManagerLinkKeySource } from '../../shared/secrets/secret-source';

// Built once per container and reused by every invocation it serves.
const config = loadApiLambdaConfig(process.env);
const logger = createLogger();
const tracer = new Tracer({ serviceName: 'planning-report-exporter' });
const s3 = tracer.captureAWSv3Client(createS3Client(config.AWS_ENDPOINT_URL_S3));
const storage = new S3Storage({
  client: s3,
  bucket: config.REPORTS_BUCKET,
  prefix: config.REPORTS_PREFIX,
  serverSideEncryption: 'AES256',
});
const presigner = createPresigner({ client: s3, bucket: config.REPORTS_BUCKET, prefix: config.REPORTS_PREFIX });
const linkKeys = new SecretsManagerLinkKeySource({
  secretId: config.LINK_KEY_SECRET_ID,
  client: tracer.captureAWSv3Client(new SecretsManagerClient({})),
});
const launcher = new LambdaJobLauncher({
  functionName: config.EXPORT_FUNCTION_NAME,
  client: tracer.captureAWSv3Client(new LambdaClient({})),
});
const definitions = parseConfiguredDefinitions(config.REPORT_DEFINITIONS);

/** API Gateway HTTP API (payload format 2.0) → the export API. */
export const handler = async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> => {
  logger.addContext(context);
  logger.appendKeys({ requestId: event.requestContext.requestId, route: event.routeKey });
  try {
    const body = event.body !== undefined && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    const response = await handleApiRequest(
      {
        method: event.requestContext.http.method,
        route: event.routeKey,
        pathParameters: event.pathParameters ?? {},
        body,
        requestId: event.requestContext.requestId,
      },
      {
        definitions,
        jobs: new JobStatusStore(storage),
        launcher,
        storage,
        presign: presigner.presignGet,
        linkKeys: () => linkKeys.getKeys(),
        apiBaseUrl: config.LINK_BASE_URL,
        log: logger,
      },
    );
    return response;
  } finally {
    logger.resetKeys();
  }
};
