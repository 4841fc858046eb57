import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_API_URL } from '../cli/local-link-keys';
import { silenceSdkNodeNotice } from '../cli/main';
import { startHttpApi } from '../test/support/http-api';
import { startLambdaHarness } from '../test/support/lambda-harness';
import { startWebhookRecorder } from '../test/support/webhook-recorder';

/**
 * `npm run local`: the whole stack on loopback for a person to click through — planning API
 * simulator (demo tenant), s3rver, the AWS stubs, both Lambda handlers, and the HTTP API on
 * 127.0.0.1:8787 (as in the tests). Report: examples/demo-report.json. Get a link to open with
 * `npm run link -- --report demo-weekly --local`. Ctrl-C stops it.
 */
if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
  process.stdout.write(
    'Usage: npm run local\n\nServes the whole stack on loopback (realistic demo tenant, report examples/demo-report.json)\n' +
      `with the HTTP API at ${LOCAL_API_URL}. Then: npm run link -- --report demo-weekly --local. Ctrl-C stops it.\n`,
  );
  process.exit(0);
}
silenceSdkNodeNotice(process.env);
const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', 'examples', 'demo-report.json'), 'utf8')) as { name: string };
// The report's chat channels post to a local recorder (its secret as `npm run demo`'s definition names it).
const hooks = await startWebhookRecorder();
const harness = await startLambdaHarness({ [definition.name]: definition }, { tenant: 'demo', flavour: 'demo', env: { LINK_BASE_URL: LOCAL_API_URL } });
harness.secrets.setSecret('demo/chat-webhooks', JSON.stringify({ slack: hooks.url('slack/T0LOCAL/B0LOCAL/local'), teams: hooks.url('teams/workflows/local') }));
const api = await startHttpApi(harness.apiHandler, { port: Number(new URL(LOCAL_API_URL).port) });
process.stdout.write(`local stack: HTTP API at ${api.baseUrl}, report "${definition.name}"\n`);
process.stdout.write(`open a run link from: npm run link -- --report ${definition.name} --local\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void api.close().then(() => harness.close()).then(() => hooks.close()).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
