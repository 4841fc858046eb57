import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { ExporterError, transientAwsFailure } from '../core/errors';
import type { FanOutStarter } from '../job/stages/route';

export function createSfnClient(): SFNClient {
  return new SFNClient({});
}

/**
 * Starts the fan-out state machine. The execution is named after the run, so a retried or repeated
 * scheduled invocation starts it once (Step Functions refuses a second execution of that name).
 */
export class StepFunctionsFanOutStarter implements FanOutStarter {
  private readonly client: SFNClient;

  constructor(
    private readonly stateMachineArn: string,
    client?: SFNClient,
  ) {
    this.client = client ?? createSfnClient();
  }

  async start(name: string, input: Record<string, unknown>): Promise<boolean> {
    try {
      await this.client.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name, input: JSON.stringify(input) }));
      return true;
    } catch (error) {
      if (error instanceof ExecutionAlreadyExists) return false;
      const detail = error instanceof Error ? error.name : String(error);
      throw new ExporterError(`could not start the fan-out of run "${name}": ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
    }
  }
}
