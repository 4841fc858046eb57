import type { LambdaClient, LambdaClientConfig } from '@aws-sdk/client-lambda';
import type { ExportJobRequest, JobLauncher } from '../job/request';

/**
 * The SDK's Lambda client, loaded by the first start of an export: the API's other routes (the e-mail's
 * links, an export's status, the run pages, unsubscribing) never need it, so in the bundle it is a chunk
 * of its own (0.2 MB, about a quarter of the function's index.mjs) that a cold start does not parse.
 */
const lambdaSdk = () => import('@aws-sdk/client-lambda');

export interface LambdaJobLauncherOptions {
  readonly functionName: string;
  /** Wraps the client once it is built: the handler's tracer (captureAWSv3Client). */
  readonly instrument?: (client: LambdaClient) => LambdaClient;
  /** The client's configuration; the SDK's defaults (the function's region and role) without it. */
  readonly clientConfig?: LambdaClientConfig;
}

/** Starts the export-report function asynchronously (InvocationType Event): the API answers at once. */
export class LambdaJobLauncher implements JobLauncher {
  private client: Promise<LambdaClient> | undefined;
  constructor(private readonly options: LambdaJobLauncherOptions) {}

  async launch(request: ExportJobRequest): Promise<void> {
    const [{ InvokeCommand }, client] = await Promise.all([lambdaSdk(), (this.client ??= this.createClient())]);
    await client.send(
      new InvokeCommand({
        FunctionName: this.options.functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(request)),
      }),
    );
  }

  private async createClient(): Promise<LambdaClient> {
    const { LambdaClient } = await lambdaSdk();
    const client = new LambdaClient(this.options.clientConfig ?? {});
    return this.options.instrument?.(client) ?? client;
  }
}
