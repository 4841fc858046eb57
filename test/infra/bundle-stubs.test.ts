// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { BUNDLE_ALIASES, esbuildOptions, SDK_CREDENTIAL_CHAIN } from '../../infra/constructs/exporter-function';
import { functionBundle } from '../support/function-bundles';

/**
 * An alias of BUNDLING replaces a module for every importer in a bundle, so each stubbed module must be
 * imported only by the package whose unused part it is: the list below is what each function's bundle
 * asks for under an aliased name (esbuild's metafile), and a new importer fails here until it is
 * looked at. The X-Ray SDK's stub (semver, only for tracing an AWS SDK v2) is in every bundle: a bundle
 * traces its SDK v3 clients, in a fresh process from a folder with no node_modules, as in Lambda.
 */

const ARCHIVER_UTILS = 'archiver-utils';
/** Every SDK client of a function asks for the default credential chain. */
const chainFor = (...clients: string[]): string[] => clients.map((client) => `${SDK_CREDENTIAL_CHAIN} <= @aws-sdk/client-${client}`);
/** What each function's bundle imports under an aliased name: `module <= importing package`. */
const EXPECTED_IMPORTERS: Readonly<Record<string, readonly string[]>> = {
  'export-report': [
    '@noble/ciphers/aes <= pdfkit',
    'brotli/decompress.js <= fontkit',
    `glob <= ${ARCHIVER_UTILS}`,
    `graceful-fs <= ${ARCHIVER_UTILS}`,
    `lazystream <= ${ARCHIVER_UTILS}`,
    `lodash.difference <= ${ARCHIVER_UTILS}`,
    `lodash.flatten <= ${ARCHIVER_UTILS}`,
    `lodash.isplainobject <= ${ARCHIVER_UTILS}`,
    `lodash.union <= ${ARCHIVER_UTILS}`,
    'png-js <= pdfkit',
    // 2.3.8 asked for: only to wrap an old-style stream in a PassThrough (never one of exceljs's).
    `readable-stream <= ${ARCHIVER_UTILS}`,
    // 3.6.2 asked for, the copy they get.
    'readable-stream <= archiver',
    'readable-stream <= compress-commons',
    'readable-stream <= crc32-stream',
    'readable-stream <= exceljs',
    'readdir-glob <= archiver',
    'saxes <= exceljs',
    'semver <= aws-xray-sdk-core',
    'tar-stream <= archiver',
    ...chainFor('dynamodb', 'eventbridge', 's3', 'secrets-manager', 'sesv2', 'sfn'),
  ],
  'export-api': ['semver <= aws-xray-sdk-core', ...chainFor('dynamodb', 'lambda', 's3', 'secrets-manager', 'sesv2')],
  'definitions-sync': ['semver <= aws-xray-sdk-core', ...chainFor('dynamodb', 's3', 'scheduler', 'secrets-manager', 'sesv2')],
  'mail-events': ['semver <= aws-xray-sdk-core', ...chainFor('dynamodb', 's3', 'secrets-manager', 'sesv2')],
};

const aliased = BUNDLE_ALIASES.map((alias) => alias.slice(0, alias.indexOf('=')));

/** The aliased imports of a bundle, as `module <= package` (the package the importing file is in). */
function aliasedImports(metafile: Metafile): string[] {
  const found = new Set<string>();
  for (const [path, input] of Object.entries(metafile.inputs)) {
    const importer = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(path)?.[1] ?? path;
    for (const imported of input.imports) {
      if (imported.original !== undefined && aliased.includes(imported.original)) found.add(`${imported.original} <= ${importer}`);
    }
  }
  return [...found].sort();
}

describe('the stubs of BUNDLING', () => {
  it('stand in only for the packages whose unused parts they replace, in every function', async () => {
    const functions = (await readdir(join(REPO_ROOT, 'lambdas'), { withFileTypes: true })).filter((e) => e.isDirectory() && e.name !== 'middleware').map((e) => e.name).sort();
    expect(functions).toEqual(Object.keys(EXPECTED_IMPORTERS).sort());
    for (const name of functions) {
      const { metafile } = await functionBundle(name);
      expect(aliasedImports(metafile), name).toEqual([...EXPECTED_IMPORTERS[name]!].sort());
    }
  }, 240_000);

  describe('semver, which the X-Ray SDK checks an AWS SDK v2 with', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'bundle-stubs-'));
      const contents = `import { createServer } from 'node:http';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { createPowertools, withLifecycle } from './lambdas/lifecycle';
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end('{"FailedEntryCount":0,"Entries":[{"EventId":"e-1"}]}'));
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const powertools = createPowertools();
const client = powertools.tracer.captureAWSv3Client(new EventBridgeClient({
  region: 'eu-west-1', endpoint: 'http://127.0.0.1:' + server.address().port, credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
}));
const handler = withLifecycle(powertools, async () => (await client.send(new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] }))).Entries[0].EventId);
const eventId = await handler({}, { functionName: 'f', awsRequestId: 'r', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:f', getRemainingTimeInMillis: () => 60000 });
let sdkV2 = '';
try { powertools.tracer.captureAWS({ VERSION: '2.1692.0' }); } catch (error) { sdkV2 = error.message; }
server.close();
console.log(JSON.stringify({ tracing: powertools.tracer.isTracingEnabled(), eventId, sdkV2 }));`;
      await build({ ...esbuildOptions(REPO_ROOT), stdin: { contents, resolveDir: REPO_ROOT, loader: 'ts' }, outdir: dir, logLevel: 'error' });
      await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    }, 60_000);
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('is never needed: a bundle traces its SDK v3 clients, and only tracing an SDK v2 reaches the stub', async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'index.mjs')], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          // As in a Lambda with active tracing: the X-Ray SDK in Lambda mode, segments sent (and lost) over UDP.
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
          AWS_LAMBDA_FUNCTION_NAME: 'f',
          LAMBDA_TASK_ROOT: dir,
          _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
          AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
          AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
          POWERTOOLS_METRICS_DISABLED: 'true',
        },
      });
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { tracing: boolean; eventId: string; sdkV2: string };
      expect(result).toEqual({ tracing: true, eventId: 'e-1', sdkV2: expect.stringContaining('AWS SDK v2 cannot be traced in this bundle') as string });
    }, 60_000);
  });

  describe('the credential chain, as a Lambda reaches it', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'bundle-credentials-'));
      // An SDK client built as the adapters build it (no credentials given): the bundle's chain finds them.
      // It prints the access key the request was signed with, or the error the client threw.
      const contents = `import { createServer } from 'node:http';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
let signedWith = '';
const server = createServer((request, response) => {
  request.resume();
  if (request.url === '/role-credentials') {
    const authorized = request.headers.authorization === 'container-token';
    request.on('end', () => response.writeHead(authorized ? 200 : 403, { 'content-type': 'application/json' }).end(authorized
      ? JSON.stringify({ AccessKeyId: 'AKIDCONTAINER', SecretAccessKey: 's', Token: 't', Expiration: '2099-01-01T00:00:00Z' })
      : '{"message":"no token"}'));
    return;
  }
  signedWith = /Credential=([^/]+)\\//.exec(request.headers.authorization ?? '')?.[1] ?? '';
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end('{"FailedEntryCount":0,"Entries":[{"EventId":"e-1"}]}'));
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
if (process.env.CONTAINER === 'yes') process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = base + '/role-credentials';
const client = new EventBridgeClient({ region: 'eu-west-1', endpoint: base });
let result;
try {
  await client.send(new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] }));
  result = { signedWith };
} catch (error) {
  result = { error: error.message };
}
server.close();
console.log(JSON.stringify(result));`;
      await build({ ...esbuildOptions(REPO_ROOT), stdin: { contents, resolveDir: REPO_ROOT, loader: 'ts' }, outdir: dir, logLevel: 'error' });
      await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    }, 60_000);
    afterAll(() => rm(dir, { recursive: true, force: true }));

    /** Runs the bundle in a fresh process with only `env` (and PATH, HOME pointing at an empty folder: no ~/.aws). */
    async function signedIn(env: Record<string, string>): Promise<{ signedWith?: string; error?: string }> {
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'index.mjs')], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ...env } });
      return JSON.parse(stdout.trim().split('\n').pop()!) as { signedWith?: string; error?: string };
    }

    it('signs with the execution role\'s keys from the environment, as Lambda hands them over', async () => {
      expect(await signedIn({ AWS_ACCESS_KEY_ID: 'AKIDENVIRONMENT', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 't' })).toEqual({ signedWith: 'AKIDENVIRONMENT' });
    }, 60_000);

    it('signs with the credentials of the container endpoint when the environment has no keys', async () => {
      expect(await signedIn({ CONTAINER: 'yes', AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' })).toEqual({ signedWith: 'AKIDCONTAINER' });
    }, 60_000);

    it('says what is missing and where to look when neither is there, instead of trying profiles or instance metadata', async () => {
      const { error } = await signedIn({ AWS_PROFILE: 'somebody' });
      expect(error).toContain('No AWS credentials');
      expect(error).toContain('AWS_ACCESS_KEY_ID');
      expect(error).toContain('AWS_CONTAINER_CREDENTIALS_FULL_URI');
    }, 60_000);
  });
});
