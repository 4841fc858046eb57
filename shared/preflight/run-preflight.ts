import { checkApiGroups, checkPlanningSecret, type SecretLocation } from './api-checks';
import type { Check } from './check';
import { checkCapacity, checkConcurrency } from './concurrency-check';
import type { KnownReport, PreflightPorts, PreflightTarget } from './ports';
import { checkMailingReport, checkSchedules, checkStoredReports, emailsSomeone } from './report-checks';
import { checkEmail } from './ses-checks';
import { checkBootstrap, checkStack, type StackOutputs } from './stack-checks';

/**
 * The planning API secret to read: --secret-id, else the stack's PlanningSecretId output, else
 * cdk.json's planningSecretName (before the first deploy). A secret the stack created is named by
 * its ARN; the output and the fixes name it through the stack instead of printing it.
 */
export function secretLocation(target: PreflightTarget, outputs: StackOutputs | undefined): SecretLocation | undefined {
  const byName = (id: string, createdByStack: boolean): SecretLocation => ({ id, label: `secret "${id}"`, shellRef: `'${id}'`, createdByStack });
  if (target.secretId !== undefined) return byName(target.secretId, false);
  const output = outputs?.PlanningSecretId;
  if (output === undefined) return target.settings.planningSecretName === undefined ? undefined : byName(target.settings.planningSecretName, false);
  if (!output.startsWith('arn:')) return byName(output, false);
  const query = `"Stacks[0].Outputs[?OutputKey=='PlanningSecretId'].OutputValue"`;
  return {
    id: output,
    label: 'the secret of output PlanningSecretId',
    shellRef: `"$(aws cloudformation describe-stacks --stack-name ${target.stackName} --region ${target.region} --query ${query} --output text)"`,
    createdByStack: true,
  };
}

/** The reports in use and where they were found: the stored ones once the stack is up, else cdk.json's. */
async function reportChecks(target: PreflightTarget, ports: PreflightPorts, outputs: StackOutputs | undefined): Promise<{ checks: Check[]; reports: readonly KnownReport[] }> {
  const bucket = outputs?.DefinitionsBucketName;
  if (bucket === undefined) {
    return { checks: [checkMailingReport(target.settings.reports, 'cdk.json: the deploy stores them', undefined)], reports: target.settings.reports };
  }
  const stored = await checkStoredReports(bucket, ports.storedReports(bucket));
  const reports = stored.reports ?? target.settings.reports;
  const checks = [stored.check, checkMailingReport(reports, stored.reports ? 'stored in the definitions bucket' : 'cdk.json', bucket)];
  const group = outputs?.ScheduleGroupName;
  if (group !== undefined && stored.reports) checks.push(...(await checkSchedules(group, ports.schedules(group), stored.reports, bucket)));
  return { checks, reports };
}

/**
 * Every check between an account and a first e-mail, in the order a deployment meets them: the
 * bootstrap, the Lambda concurrency the stack reserves, and the stack, the planning API secret and what the key may read, SES (identity, sender,
 * sandbox and recipients), the stored reports and their schedules. Reads only; never throws for
 * what it finds.
 */
export interface PreflightResult {
  readonly checks: readonly Check[];
  /** What to run on demand for a first e-mail once nothing blocks it: the export function and a report that e-mails. */
  readonly firstRun?: { readonly functionName: string; readonly report: string } | undefined;
}

export async function runPreflight(target: PreflightTarget, ports: PreflightPorts): Promise<PreflightResult> {
  const stack = await checkStack(target.region, target.stackName, ports.stacks);
  const bootstrap = await checkBootstrap(target.region, ports.bootstrap, ports.stacks, stack.deployed);
  const concurrency = await checkConcurrency(
    { region: target.region, reserved: target.settings.exportReservedConcurrency, functionName: stack.outputs?.ExportFunctionName, deployed: stack.deployed },
    ports.lambda,
  );
  const { checks: reports, reports: inUse } = await reportChecks(target, ports, stack.outputs);
  const secret = secretLocation(target, stack.outputs);
  const { check: secretCheck, credentials } = await checkPlanningSecret(secret, target.region, ports.secrets);
  // A group matters when a report that e-mails reads it (any report, while none e-mails yet).
  const mailing = inUse.filter(emailsSomeone);
  const datasets = new Set((mailing.length > 0 ? mailing : inUse).flatMap((r) => Object.keys(r.definition.datasets)));
  const api = await checkApiGroups(credentials, ports.probeApi, datasets, secret);
  const email = await checkEmail(target.region, target.settings, inUse, ports.ses);
  const capacity = await checkCapacity(target.region, ports.ses, ports.lambda, target.settings.scheduledConcurrency);
  const functionName = stack.outputs?.ExportFunctionName;
  const report = mailing[0]?.definition.name;
  return {
    checks: [bootstrap, concurrency, ...stack.checks, secretCheck, ...api, ...email, capacity, ...reports],
    firstRun: functionName !== undefined && report !== undefined ? { functionName, report } : undefined,
  };
}
