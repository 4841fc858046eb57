import type { LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LambdaJobLauncher } from '../../../shared/http/lambda-launcher';
import { restJsonAnswer, startHttpStub, type HttpStub } from '../../support/http-stub';

/**
 * The export API starts the export function through Lambda's Invoke (REST-JSON): a real SDK client,
 * pointed at a local stand-in, serializes and signs the call as it would against AWS.
 */
describe('LambdaJobLauncher', () => {
  let stub: HttpStub | undefined;
  afterEach(() => stub?.close());

  const launcherFor = (endpoint: string, instrument?: (client: LambdaClient) => LambdaClient) =>
    new LambdaJobLauncher({
      functionName: 'planning-report-exporter-ExportReport',
      // One attempt: the SDK's own retries of a refusal would only make the test wait.
      clientConfig: { region: 'eu-west-1', endpoint, credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 's' }, maxAttempts: 1 },
      ...(instrument && { instrument }),
    });

  it('invokes the export function asynchronously with the request as its payload, one client for every start', async () => {
    stub = await startHttpStub(() => ({ ...restJsonAnswer(202, {}), body: '' }));
    const built: LambdaClient[] = [];
    const launcher = launcherFor(stub.endpoint, (client) => (built.push(client), client));
    await launcher.launch({ report: 'weekly', exportId: 'e-1', source: 'api' });
    await launcher.launch({ report: 'weekly', exportId: 'e-2', source: 'api' });

    expect(stub.requests.map((r) => [r.method, r.path, r.headers['x-amz-invocation-type']])).toEqual([
      ['POST', '/2015-03-31/functions/planning-report-exporter-ExportReport/invocations', 'Event'],
      ['POST', '/2015-03-31/functions/planning-report-exporter-ExportReport/invocations', 'Event'],
    ]);
    expect(stub.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { report: 'weekly', exportId: 'e-1', source: 'api' },
      { report: 'weekly', exportId: 'e-2', source: 'api' },
    ]);
    expect(stub.requests[0]!.headers.authorization).toContain('Credential=AKIDTEST/');
    // Built by the first start and instrumented once (the handler's tracer).
    expect(built).toHaveLength(1);
  });

  it('fails the start when Lambda refuses the call, so the API answers that it could not start', async () => {
    stub = await startHttpStub(() => restJsonAnswer(429, { message: 'Rate exceeded' }, 'TooManyRequestsException'));
    const launcher = launcherFor(stub.endpoint);
    await expect(launcher.launch({ report: 'weekly', exportId: 'e-3', source: 'api' })).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });
});
