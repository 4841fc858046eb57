import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../lambdas/lambda-credentials';
import { withProcessEnv } from '../support/process-env';

const NONE = {
  AWS_ACCESS_KEY_ID: undefined,
  AWS_SECRET_ACCESS_KEY: undefined,
  AWS_SESSION_TOKEN: undefined,
  AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
  AWS_CONTAINER_AUTHORIZATION_TOKEN: undefined,
};

describe("the bundles' credential chain", () => {
  // A container credentials endpoint that fails: it answers 500 to every request.
  const failing = createServer((_req, res) => res.writeHead(500).end('{"message":"role not ready"}'));
  let endpoint: string;
  beforeAll(async () => {
    await new Promise<void>((done) => failing.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(failing.address() as { port: number }).port}/credentials`;
  });
  afterAll(() => new Promise<void>((done) => failing.close(() => done())));

  const failure = (env: Record<string, string | undefined>) =>
    withProcessEnv({ ...NONE, ...env }, () => defaultProvider()().then(() => 'resolved', (error: unknown) => (error as Error).message));

  it('says neither link is set when the environment has no keys and no endpoint', async () => {
    expect(await failure({})).toContain('and neither is set');
  });

  it('names the container link and why it failed when its endpoint is set but gives no credentials, instead of "neither is set"', async () => {
    const said = await failure({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint });
    expect(said).toContain('the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI) is set, but it gave no credentials');
    expect(said).toContain('500');
    expect(said).not.toContain('neither is set');
  });
});
