import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import type { BootstrapReader } from './ports';
import { BOOTSTRAP_VERSION_PARAMETER } from './bootstrap-parameter';
import { awsReadError } from './read-error';

/** An SSM client for a region, at a local stand-in's endpoint in tests. */
export function createSsmClient(region: string, endpoint?: string): SSMClient {
  return new SSMClient({ region, ...(endpoint !== undefined && { endpoint }) });
}

/** The CDK bootstrap version of the client's account and region, from its SSM parameter. */
export class SsmBootstrapReader implements BootstrapReader {
  constructor(private readonly client: SSMClient = new SSMClient({})) {}

  async version(): Promise<number | undefined> {
    try {
      const { Parameter: parameter } = await this.client.send(new GetParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER }));
      const version = Number(parameter?.Value);
      return Number.isFinite(version) ? version : undefined;
    } catch (error) {
      if (error instanceof ParameterNotFound) return undefined;
      throw awsReadError('ssm:GetParameter', error);
    }
  }
}
