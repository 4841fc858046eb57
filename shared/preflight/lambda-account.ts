import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';
import type { LambdaConcurrency, LambdaConcurrencyReader } from './ports';
import { awsReadError } from './read-error';

/** A Lambda client for a region, at a local stand-in's endpoint in tests. */
export function createLambdaAccountClient(region: string, endpoint?: string): LambdaClient {
  return new LambdaClient({ region, ...(endpoint !== undefined && { endpoint }) });
}

/** The account's Lambda concurrency, through GetAccountSettings and GetFunctionConcurrency. */
export class LambdaAccountReader implements LambdaConcurrencyReader {
  constructor(private readonly client: LambdaClient = new LambdaClient({})) {}

  async account(): Promise<LambdaConcurrency> {
    let limit;
    try {
      limit = (await this.client.send(new GetAccountSettingsCommand({}))).AccountLimit;
    } catch (error) {
      throw awsReadError('lambda:GetAccountSettings', error);
    }
    const accountLimit = limit?.ConcurrentExecutions;
    const unreserved = limit?.UnreservedConcurrentExecutions;
    if (accountLimit === undefined || unreserved === undefined) {
      throw awsReadError('lambda:GetAccountSettings', new Error('the answer has no AccountLimit.ConcurrentExecutions or UnreservedConcurrentExecutions'));
    }
    return { accountLimit, unreserved };
  }

  async reserved(functionName: string): Promise<number | undefined> {
    try {
      return (await this.client.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName }))).ReservedConcurrentExecutions;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw awsReadError('lambda:GetFunctionConcurrency', error);
    }
  }
}
