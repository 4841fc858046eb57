import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLING, esbuildOptions } from '../../infra/constructs/exporter-function';
import { REPO_ROOT } from '../../infra/config';
import { silentLog } from '../../shared/core/logger';
import type { ApiDependencies } from '../../shared/http/router';
import { httpApiEvent, lambdaContext } from '../support/lambda-events';

/**
 * The deployed code is minified without keepNames, so every class is named by a letter or so. What
 * an error means must survive that: ReportFailed's errorType, the owners' advice (failure-notice.ts),
 * the fan-out's Retry and failure step and the export API's status all read the error's own fields
 * (shared/core/errors.ts), never its class's name. The modules the handlers run are bundled here as
 * the stack bundles them and asked what they make of the failures.
 */
interface Bundled {
  readonly AuthenticationError: new (message: string, details: { operation: string; status?: number }) => Error;
  readonly ReportPlanError: new (heading: string, issues: { path: string; message: string }[]) => Error;
  readonly RetryableExportError: new (message: string) => Error;
  readonly StorageError: new (message: string, options?: { retryable?: boolean }) => Error;
  readonly classifyFailure: (error: unknown) => { reason: string; errorType: string; retryable: boolean };
  readonly adviceFor: (failure: { errorType: string; retryable: boolean }) => string;
  readonly publicStepError: (error: unknown) => Error;
  readonly toldByTheJob: (part: 'assemble', error: { Error: string }) => boolean;
  readonly describeFanOutFailure: (part: 'plan', error: { Error: string; Cause?: string }) => { errorType: string; retryable: boolean };
  readonly createApiRouter: (deps: Partial<ApiDependencies>) => { resolve: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2> };
  readonly catalogOf: (definitions: Record<string, unknown>) => ApiDependencies['definitions'];
}

/** The modules bundled as the stack bundles a function, into `dir` (a data: URL cannot import Node's built-ins), and imported. */
async function bundled(dir: string): Promise<Bundled> {
  await build({
    ...esbuildOptions(REPO_ROOT),
    stdin: {
      contents: [
        "export { AuthenticationError, ReportPlanError, RetryableExportError, StorageError } from './shared/core/errors';",
        "export { classifyFailure } from './shared/job/failure';",
        "export { adviceFor } from './shared/messages/notices/failure-notice';",
        "export { describeFanOutFailure, publicStepError, toldByTheJob } from './shared/fan-out/failure';",
        "export { createApiRouter } from './shared/http/router';",
        "export { catalogOf } from './shared/definitions/catalog';",
      ].join('\n'),
      resolveDir: REPO_ROOT,
      loader: 'ts',
    },
    outdir: dir,
    logLevel: 'error',
  });
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  return (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as Bundled;
}

describe("the Lambdas' bundling", () => {
  let dir: string;
  let b: Bundled;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'error-bundle-'));
    b = await bundled(dir);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('minifies without keepNames, and errors still say what they are, how to retry them and what the owners can do', async () => {
    expect(BUNDLING.minify).toBe(true);
    expect('keepNames' in BUNDLING).toBe(false);
    // The minifier did shorten the classes' names: nothing below can have read them.
    expect(b.AuthenticationError.name).not.toBe('AuthenticationError');
    expect(b.RetryableExportError.name).not.toBe('RetryableExportError');

    const refused = new b.AuthenticationError('401 from the API', { operation: 'listRisks', status: 401 });
    expect(b.classifyFailure(refused)).toMatchObject({ errorType: 'AuthenticationError', retryable: false });
    expect(b.adviceFor(b.classifyFailure(refused))).toMatch(/^Check the planning API user and its API key/);

    const plan = new b.ReportPlanError('the plan found problems', [{ path: 'datasets.risks.registers[0]', message: 'not visible' }]);
    expect(b.adviceFor(b.classifyFailure(plan))).toMatch(/^The run was stopped before it fetched anything/);

    const throttled = new b.StorageError('S3 answered 503', { retryable: true });
    expect(b.classifyFailure(throttled)).toMatchObject({ errorType: 'StorageError', retryable: true });
    expect(b.adviceFor(b.classifyFailure(throttled))).toMatch(/^This kind of failure often passes by itself/);

    // A fan-out step's error reaches Step Functions by its name: the Retry and the failure step match it.
    const retry = b.publicStepError(new b.RetryableExportError('the planning API answered 503'));
    expect(retry.name).toBe('RetryableExportError');
    expect(b.toldByTheJob('assemble', { Error: retry.name })).toBe(true);
    const caught = b.publicStepError(refused);
    const failure = b.describeFanOutFailure('plan', { Error: caught.name, Cause: JSON.stringify({ errorType: caught.name, errorMessage: caught.message }) });
    expect(failure).toMatchObject({ errorType: 'AuthenticationError', retryable: false });
    expect(b.adviceFor(failure)).toMatch(/^Check the planning API user and its API key/);
  });

  it('answers the export API\'s errors by their own status through the minified router', async () => {
    const api = b.createApiRouter({ definitions: b.catalogOf({}), log: silentLog, clock: () => new Date('2026-11-23T06:00:00Z') });
    const body = JSON.stringify({ report: 'nope' });
    const refused = await api.resolve(httpApiEvent('POST', 'POST /exports', '/exports', { body }), lambdaContext('export-api'));
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(String(refused.body))).toMatchObject({ message: expect.stringContaining('"nope"'), issues: [expect.objectContaining({ path: 'report' })] });
  });

  it('gives esbuild every option of BUNDLING, with the aliases resolved in the repository', () => {
    const options = esbuildOptions(REPO_ROOT);
    const { aliases, ...rest } = BUNDLING;
    expect(options).toMatchObject({ ...rest, bundle: true, platform: 'node', external: [] });
    expect(Object.keys(options.alias ?? {})).toEqual(aliases.map((a) => a.slice(0, a.indexOf('='))));
    expect(Object.values(options.alias ?? {}).every((path) => path.startsWith(REPO_ROOT))).toBe(true);
  });
});
