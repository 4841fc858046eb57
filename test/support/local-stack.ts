import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_STACK_REPORT_FILE, type LocalStackAddress } from '../../cli/local-link-keys';
import { startHttpApi, type LocalHttpApi } from './http-api';
import { startLambdaHarness, type LambdaHarness } from './lambda-harness';
import { startWebhookRecorder, type WebhookRecorder } from './webhook-recorder';

export interface LocalStack {
  readonly harness: LambdaHarness;
  readonly api: LocalHttpApi;
  readonly hooks: WebhookRecorder;
  /** The report it serves (examples/demo-report.json). */
  readonly report: string;
  close(): Promise<void>;
}

/**
 * The whole stack on loopback at `address` (`npm run local`, and the tests that click through it):
 * the planning API simulator (demo tenant), s3rver and dynalite on the address's ports, the AWS stubs,
 * both Lambda handlers, and the HTTP API. It serves examples/demo-report.json; the links its functions
 * and `npm run demo -- --local` sign open here.
 */
export async function startLocalStack(address: LocalStackAddress): Promise<LocalStack> {
  const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', LOCAL_STACK_REPORT_FILE), 'utf8')) as { name: string };
  // The report's chat channels post to a local recorder (its secret as `npm run demo`'s definition names it).
  const hooks = await startWebhookRecorder();
  const harness = await startLambdaHarness(
    { [definition.name]: definition },
    { tenant: 'demo', flavour: 'demo', env: { LINK_BASE_URL: address.apiUrl }, ports: { s3: address.s3Port, dynamoDb: address.dynamoDbPort } },
  );
  harness.secrets.setSecret('demo/chat-webhooks', JSON.stringify({ slack: hooks.url('slack/T0LOCAL/B0LOCAL/local'), teams: hooks.url('teams/workflows/local') }));
  const api = await startHttpApi(harness.apiHandler, { port: address.apiPort });
  return {
    harness,
    api,
    hooks,
    report: definition.name,
    close: async () => {
      await api.close();
      await harness.close();
      await hooks.close();
    },
  };
}
