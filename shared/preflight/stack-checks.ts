import { errorMessage } from '../core/errors';
import { cannotTell, notOk, ok, type Check } from './check';
import type { BootstrapReader, DeployedStack, StackReader } from './ports';
import { BOOTSTRAP_VERSION_PARAMETER } from './bootstrap-parameter';

/**
 * The bootstrap version the stack's template requires (the CheckBootstrapVersion rule `cdk synth`
 * adds: versions 1 to 5 are refused); test/docs/deploy-outputs.test.ts reads it from a synth.
 */
export const MIN_BOOTSTRAP_VERSION = 6;

/** The stack outputs preflight and docs/deploy.md rely on; the same test holds them to the synthesized stack. */
export const EXPECTED_OUTPUTS = [
  'ApiUrl',
  'ReportsBucketName',
  'LedgerTableName',
  'PlanningSecretId',
  'LinkKeySecretArn',
  'ExportFunctionName',
  'DefinitionsBucketName',
  'ScheduleGroupName',
  'FanOutStateMachineArn',
  'AlarmTopicArn',
] as const;

export type StackOutputs = Partial<Record<(typeof EXPECTED_OUTPUTS)[number], string>>;

/** `npx cdk bootstrap` for the account of the credentials in use, without printing the account id. */
export const bootstrapCommand = (region: string) => `npx cdk bootstrap aws://$(aws sts get-caller-identity --query Account --output text)/${region}`;

export const deployCommand = (stackName: string) => `npx cdk deploy ${stackName} --outputs-file cdk-outputs.json`;

/**
 * The CDK bootstrap of the account and region: its SSM parameter, or the CDKToolkit stack's
 * BootstrapVersion output when the parameter cannot be read. Needed to deploy; once the stack is
 * deployed, a missing bootstrap blocks the next deploy, not the first e-mail.
 */
export async function checkBootstrap(region: string, bootstrap: BootstrapReader, stacks: StackReader, deployed: boolean): Promise<Check> {
  const fields = { area: 'account' as const, name: 'CDK bootstrap', blocks: !deployed };
  const fix = bootstrapCommand(region);
  let version: number | undefined;
  try {
    version = await bootstrap.version();
  } catch (error) {
    const toolkit = await stacks.describe('CDKToolkit').catch(() => undefined);
    const output = Number(toolkit?.outputs.BootstrapVersion);
    if (!Number.isFinite(output)) return cannotTell({ ...fields, detail: `${errorMessage(error)}, and the CDKToolkit stack could not be read either` });
    version = output;
  }
  if (version === undefined) {
    return notOk({ ...fields, detail: `${region} is not bootstrapped for the CDK (no SSM parameter ${BOOTSTRAP_VERSION_PARAMETER})`, fix });
  }
  if (version < MIN_BOOTSTRAP_VERSION) {
    return notOk({ ...fields, detail: `bootstrap version ${version} in ${region} is older than the ${MIN_BOOTSTRAP_VERSION} this stack needs`, fix });
  }
  return ok({ ...fields, detail: `bootstrap version ${version} in ${region}` });
}

const USABLE = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE', 'IMPORT_COMPLETE', 'IMPORT_ROLLBACK_COMPLETE']);

/** The deployed stack and its outputs; the outputs are undefined when the stack is not usable. */
export async function checkStack(
  region: string,
  stackName: string,
  stacks: StackReader,
): Promise<{ checks: Check[]; outputs?: StackOutputs; deployed: boolean }> {
  const fields = { area: 'stack' as const, name: `stack ${stackName}`, blocks: true };
  let stack: DeployedStack | undefined;
  try {
    stack = await stacks.describe(stackName);
  } catch (error) {
    return { checks: [cannotTell({ ...fields, detail: errorMessage(error) })], deployed: false };
  }
  if (!stack) return { checks: [notOk({ ...fields, detail: `not deployed in ${region}`, fix: deployCommand(stackName) })], deployed: false };
  if (stack.status.endsWith('_IN_PROGRESS')) {
    return { checks: [cannotTell({ ...fields, detail: `${stack.status}: run preflight again when it has finished`, fix: `aws cloudformation wait stack-update-complete --stack-name ${stackName} --region ${region}` })], deployed: true };
  }
  if (!USABLE.has(stack.status)) {
    const fix = `CloudFormation console → Stacks → ${stackName} → Events (the first FAILED resource says why); fix that, then ${deployCommand(stackName)}`;
    return { checks: [notOk({ ...fields, detail: `${stack.status} in ${region}`, fix })], deployed: false };
  }
  const outputs = stack.outputs as StackOutputs;
  const missing = EXPECTED_OUTPUTS.filter((name) => outputs[name] === undefined);
  const outputsCheck =
    missing.length === 0
      ? ok({ area: 'stack', name: 'stack outputs', blocks: false, detail: `all ${EXPECTED_OUTPUTS.length} that preflight and docs/deploy.md use` })
      : notOk({
          area: 'stack',
          name: 'stack outputs',
          blocks: false,
          detail: `missing ${missing.join(', ')}: the deployed stack is older than this checkout`,
          fix: deployCommand(stackName),
        });
  return { checks: [ok({ ...fields, detail: `${stack.status} in ${region}` }), outputsCheck], outputs, deployed: true };
}
