/**
 * What the Lambda bundles put in place of `semver`, which the X-Ray SDK (under Powertools' Tracer) loads
 * only to check the version of an AWS SDK v2 in `captureAWS`, through an esbuild alias in
 * infra/constructs/exporter-function.ts (SDK_V2_VERSION_CHECK): 30 kB of every bundle. The functions use
 * SDK v3, captured client by client (`captureAWSv3Client`, lambdas/adapters.ts); capturing an SDK v2
 * would fail here, loudly.
 */
export function gte(): never {
  throw new Error('AWS SDK v2 cannot be traced in this bundle: the functions use SDK v3 clients (tracer.captureAWSv3Client)');
}
