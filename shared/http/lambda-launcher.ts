import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { ExportJobRequest, JobLauncher } from '../job/request';

/** Starts the export-report function asynchronously (InvocationType Event): the API answers at once. */
export class LambdaJobLauncher implements JobLauncher {
  private readonly client: LambdaClient;
  constructor(private readonly options: { functionName: string; client?: LambdaClient }) {
    this.client = options.client ?? new LambdaClient({});
  }

  async launch(request: ExportJobRequest): Promise<void> {
    await this.client.send(
      new InvokeCommand({
        FunctionName: this.options.functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(request)),
      }),
    );
  }
}

/** The Lambda client the adapter uses by default; the handler builds it to instrument it once. */
export function createLambdaClient(): LambdaClient {
  return new LambdaClient({});
}
