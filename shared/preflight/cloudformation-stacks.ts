import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DeployedStack, StackReader } from './ports';
import { awsReadError } from './read-error';

/** A CloudFormation client for a region, at a local stand-in's endpoint in tests. */
export function createCloudFormationClient(region: string, endpoint?: string): CloudFormationClient {
  return new CloudFormationClient({ region, ...(endpoint !== undefined && { endpoint }) });
}

/** The region the SDK would pick (AWS_REGION, the profile's region), or undefined when none is set. */
export async function configuredRegion(): Promise<string | undefined> {
  const client = new CloudFormationClient({});
  try {
    return await client.config.region();
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

/** Stacks by name through DescribeStacks: status and outputs. */
export class CloudFormationStackReader implements StackReader {
  constructor(private readonly client: CloudFormationClient = new CloudFormationClient({})) {}

  async describe(stackName: string): Promise<DeployedStack | undefined> {
    try {
      const { Stacks: stacks = [] } = await this.client.send(new DescribeStacksCommand({ StackName: stackName }));
      const stack = stacks[0];
      if (!stack) return undefined;
      const outputs = Object.fromEntries((stack.Outputs ?? []).flatMap((o) => (o.OutputKey && o.OutputValue !== undefined ? [[o.OutputKey, o.OutputValue]] : [])));
      return { status: stack.StackStatus ?? 'UNKNOWN', outputs };
    } catch (error) {
      // CloudFormation answers a stack that does not exist with a ValidationError saying so.
      if (error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message)) return undefined;
      throw awsReadError('cloudformation:DescribeStacks', error);
    }
  }
}
