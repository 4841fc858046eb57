import { writeFileSync } from 'node:fs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runPreflightCommand } from '../../cli/preflight-command';
import { DefinitionStore } from '../../shared/definitions/definition-store';
import type { ReportDefinitionInput } from '../../shared/report/definition/definition';
import { S3Storage } from '../../shared/storage/s3-storage';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { captureIo } from '../support/cli-io';
import { startCloudFormationStub, type CloudFormationStub } from '../support/cloudformation-stub';
import { REFUSAL_MESSAGE } from '../support/http-stub';
import { startS3rver, type S3rverHandle } from '../support/s3rver';
import { startSchedulerStub, type SchedulerStub } from '../support/scheduler-stub';
import { startSecretsManagerStub, type SecretsManagerStub } from '../support/secrets-manager-stub';
import { startLambdaAccountStub, type LambdaAccountStub } from '../support/lambda-account-stub';
import { startSesAccountStub, type SesAccountStub } from '../support/ses-account-stub';
import { startSsmStub, type SsmStub } from '../support/ssm-stub';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { withProcessEnv } from '../support/process-env';
import { storedReports } from '../support/door-settings';

/**
 * `npm run preflight` against a local server per service, each speaking its protocol to the real SDK
 * clients: CloudFormation (Query/XML), SSM (JSON), Secrets Manager, SES v2 account calls, Scheduler
 * (REST-JSON), s3rver for the definitions bucket, and the simulator as the planning API. Each test
 * starts from a deployed stack where nothing blocks a first e-mail and breaks one thing.
 */

const REGION = 'eu-central-1';
const STACK = 'PlanningReportExporter';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:PlanningReportExporterPlanningApiCredentials-AbCdEf';
const GROUP = 'PlanningReportExporter-reports';
const FUNCTION = 'PlanningReportExporter-ExportReport1A2B3C4D';
const OUTPUTS = {
  ApiUrl: 'https://abc123.execute-api.eu-central-1.amazonaws.com/',
  ReportsBucketName: 'planningreportexporter-reports',
  LedgerTableName: 'PlanningReportExporter-Ledger',
  AccessLogBucketName: 'planningreportexporter-logs',
  PlanningSecretId: SECRET_ARN,
  LinkKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:LinkSigningKey-XyZaBc',
  ExportFunctionName: FUNCTION,
  ApiFunctionName: 'PlanningReportExporter-ExportApi',
  DefinitionsBucketName: 'definitions',
  ScheduleGroupName: GROUP,
  FanOutStateMachineArn: 'arn:aws:states:eu-central-1:123456789012:stateMachine:FanOut',
  AlarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:Alarms',
};
const BOOTSTRAP_PARAMETER = '/cdk-bootstrap/hnb659fds/version';
const WEEKLY = { cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' };
const REPORT = { name: 'acme-weekly', datasets: { risks: {}, boardItems: {} }, email: { to: ['planning@acme.example.com'] } };
const SETTINGS = {
  mailFrom: 'reports@acme.example.com',
  sesIdentityArn: `arn:aws:ses:${REGION}:123456789012:identity/acme.example.com`,
  reports: [{ definition: REPORT, schedule: WEEKLY }],
};

let sim: RunningSimulator;
let s3: S3rverHandle;
let secrets: SecretsManagerStub;
let scheduler: SchedulerStub;
let cloudFormation: CloudFormationStub;
let ssm: SsmStub;
let ses: SesAccountStub;
let lambda: LambdaAccountStub;
let dir: TempDir;
let store: DefinitionStore;

beforeAll(async () => {
  [sim, s3, secrets, scheduler, cloudFormation, ssm, ses, lambda] = await Promise.all([
    startSimulator({ tenant: 'tiny' }),
    startS3rver({ bucket: 'definitions' }),
    startSecretsManagerStub(),
    startSchedulerStub(),
    startCloudFormationStub(),
    startSsmStub(),
    startSesAccountStub(),
    startLambdaAccountStub(),
  ]);
  dir = makeTempDir('preflight');
  store = storedReports(new S3Storage({ bucket: 'definitions', prefix: '', client: s3.client }));
});
afterAll(async () => {
  await Promise.all([sim.close(), s3.close(), secrets.close(), scheduler.close(), cloudFormation.close(), ssm.close(), ses.close(), lambda.close()]);
  dir.remove();
});

/** cdk.json of the checkout preflight runs in: the settings it deploys. */
function writeCdkJson(settings: object = SETTINGS): void {
  writeFileSync(dir.path('cdk.json'), JSON.stringify({ app: 'npx tsx infra/app.ts', context: { reportExporter: settings } }));
}

/** Stores `definition` as the deploy (or a push) would, with its schedule, and the schedule the sync would make. */
async function storeReport(definition: ReportDefinitionInput & { name: string }, schedule: typeof WEEKLY | null = WEEKLY): Promise<void> {
  await store.put({ definition, schedule });
  if (schedule) {
    scheduler.schedules.set(`${GROUP}/${definition.name}`, {
      Name: definition.name,
      GroupName: GROUP,
      ScheduleExpression: schedule.cron,
      ScheduleExpressionTimezone: schedule.timeZone,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: 'arn:aws:lambda:eu-central-1:123456789012:function:x', RoleArn: 'arn:aws:iam::123456789012:role/x' },
    });
  }
}

beforeEach(async () => {
  writeCdkJson();
  ssm.parameters.clear();
  ssm.parameters.set(BOOTSTRAP_PARAMETER, '29');
  cloudFormation.stacks.clear();
  cloudFormation.stacks.set(STACK, { status: 'UPDATE_COMPLETE', outputs: { ...OUTPUTS } });
  cloudFormation.stacks.set('CDKToolkit', { status: 'UPDATE_COMPLETE', outputs: { BootstrapVersion: '29' } });
  secrets.setSecret(SECRET_ARN, JSON.stringify(sim.credentials()));
  Object.assign(ses.account, { ProductionAccessEnabled: true, SendingEnabled: true });
  ses.identities.clear();
  ses.identities.set('acme.example.com', { type: 'DOMAIN', status: 'SUCCESS' });
  scheduler.schedules.clear();
  scheduler.groups.clear();
  scheduler.groups.add(GROUP);
  for (const name of await store.names()) await store.remove(name);
  await storeReport(REPORT);
  for (const stub of [cloudFormation, ssm, ses, lambda]) stub.refuse = false;
  Object.assign(lambda.limit, { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 });
  sim.clearRefusals();
});

/** The command with every endpoint at its stand-in; the SDK reads credentials from the process environment. */
async function preflight(args: readonly string[] = [], extraEnv: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_SESV2: ses.endpoint,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: scheduler.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: REGION,
    AWS_MAX_ATTEMPTS: '1',
    // No profile of this machine decides anything.
    AWS_CONFIG_FILE: dir.path('no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: dir.path('no-aws-credentials'),
    ...extraEnv,
  };
  const io = captureIo(dir.root, env);
  const code = await withProcessEnv(env, () => runPreflightCommand(args, io));
  return { code, out: io.out(), err: io.err() };
}

/** One check as printed: its status, the rest of its line, and its fix (the line below), if any. */
function check(out: string, name: string): { status: string; detail: string; fix: string | undefined } {
  const lines = out.split('\n');
  const index = lines.findIndex((l) => /^ {2}(ok|not ok|cannot tell) +/.test(l) && l.slice(15).startsWith(`${name}: `));
  if (index < 0) throw new Error(`no check "${name}" in:\n${out}`);
  const line = lines[index]!;
  const next = lines[index + 1] ?? '';
  return { status: line.slice(2, 13).trim(), detail: line.slice(15 + name.length + 2), fix: /^ {15}fix: /.test(next) ? next.slice(20) : undefined };
}

/** Nothing a caller may not see: the secret's ARN, the API key, an account id, an ARN from a refusal. */
function expectNothingInternal(text: string): void {
  expect(text).not.toContain(SECRET_ARN);
  expect(text).not.toContain(sim.credentials().apiKey);
  expect(text).not.toContain('123456789012');
  expect(text).not.toContain(REFUSAL_MESSAGE.slice(0, 20));
}

describe('npm run preflight', () => {
  it('passes a deployed stack where nothing blocks a first e-mail, and says how to start one', async () => {
    const { code, out, err } = await preflight();
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(/^preflight of stack PlanningReportExporter in eu-central-1 \(reads only\)\n\naccount\n {2}ok {11}CDK bootstrap: bootstrap version 29 in eu-central-1\n/);
    for (const name of ['stack PlanningReportExporter', 'stack outputs', 'planning API secret', 'API group Risk', 'API group Strategic Themes & OKRs', 'API group PI Objectives', 'API group PI Board Items', 'SES identity acme.example.com', 'sender', 'SES account', 'definitions bucket definitions', 'a report that e-mails', `schedule group ${GROUP}`, 'schedules']) {
      expect(check(out, name).status, name).toBe('ok');
    }
    expect(check(out, 'planning API secret').detail).toBe(`the secret of output PlanningSecretId: ${sim.credentials().email} at ${sim.credentials().baseUrl}, company prefix acme`);
    expect(check(out, 'SES account').detail).toBe('out of the sandbox in eu-central-1: any recipient');
    expect(check(out, 'schedules').detail).toBe('the scheduled report has its schedule');
    expect(out).toMatch(
      new RegExp(`\\nnothing blocks a first e-mail\\. Start one on demand: aws lambda invoke --function-name ${FUNCTION} --cli-binary-format raw-in-base64-out --cli-read-timeout 900 --payload '\\{"report":"acme-weekly"\\}' first-run\\.json\\n$`),
    );
    expectNothingInternal(out);
  });

  it('explains itself with --help, and refuses a bad region or option in one line pointing to --help', async () => {
    const help = await preflight(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: npm run preflight -- \[--region <region>\] \[--stack <name>\] \[--secret-id <id>\]\n/);
    expect(help.out).toContain('Exit status: 0 when nothing blocks a first e-mail; 1 when something does, or could not be told;');
    const region = await preflight(['--region', 'Frankfurt']);
    expect(region.code).toBe(2);
    expect(region.err).toBe('error: --region "Frankfurt" is not a region such as eu-central-1 (npm run preflight -- --help lists the options)\n');
    expect((await preflight(['--bogus'])).code).toBe(2);
    const none = await preflight([], { AWS_REGION: '' });
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^error: no region: give --region, or set AWS_REGION/);
  });

  it('on an empty account: says to bootstrap and to deploy, each with its command, and exits 1', async () => {
    ssm.parameters.clear();
    cloudFormation.stacks.clear();
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'CDK bootstrap')).toEqual({
      status: 'not ok',
      detail: 'eu-central-1 is not bootstrapped for the CDK (no SSM parameter /cdk-bootstrap/hnb659fds/version)',
      fix: 'npx cdk bootstrap aws://$(aws sts get-caller-identity --query Account --output text)/eu-central-1',
    });
    expect(check(out, 'stack PlanningReportExporter')).toEqual({ status: 'not ok', detail: 'not deployed in eu-central-1', fix: 'npx cdk deploy PlanningReportExporter --outputs-file cdk-outputs.json' });
    expect(check(out, 'planning API secret').status).toBe('cannot tell');
    // Before the deploy, the reports are cdk.json's.
    expect(check(out, 'a report that e-mails')).toMatchObject({ status: 'ok', detail: 'acme-weekly (cdk.json: the deploy stores them)' });
    expect(out).toMatch(/\n4 checks stand between this account and a first e-mail \(2 checks could not tell\): CDK bootstrap; stack PlanningReportExporter; planning API secret; planning API groups\n$/);
  });

  it("reads the account's Lambda concurrency: the default deploys on a new account's 10, a reservation that does not fit blocks with the quota to ask for", async () => {
    cloudFormation.stacks.clear();
    expect(check((await preflight()).out, 'Lambda concurrency')).toEqual({
      status: 'ok',
      detail: 'cdk.json reserves none, so the stack deploys on this account (quota 10 in eu-central-1, 10 unreserved)',
      fix: undefined,
    });
    writeCdkJson({ ...SETTINGS, exportReservedConcurrency: 6 });
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'Lambda concurrency')).toMatchObject({ status: 'not ok', fix: expect.stringContaining('--quota-code L-B99A9384 --desired-value 106 --region eu-central-1') as unknown });
    expect(out).toMatch(/\n\d checks stand between this account and a first e-mail.*: Lambda concurrency; stack PlanningReportExporter/);
  });

  it('asks for a newer bootstrap than version 5, and reads the version from the CDKToolkit stack when the parameter is refused', async () => {
    ssm.parameters.set(BOOTSTRAP_PARAMETER, '5');
    expect(check((await preflight()).out, 'CDK bootstrap')).toMatchObject({ status: 'not ok', detail: 'bootstrap version 5 in eu-central-1 is older than the 6 this stack needs (does not block a first e-mail)' });
    ssm.refuse = true;
    expect(check((await preflight()).out, 'CDK bootstrap')).toMatchObject({ status: 'ok', detail: 'bootstrap version 29 in eu-central-1' });
  });

  it('cannot tell what it may not read, says which permission is missing, and prints no ARN from the refusal', async () => {
    for (const stub of [cloudFormation, ssm, ses]) stub.refuse = true;
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'CDK bootstrap')).toMatchObject({
      status: 'cannot tell',
      detail: 'ssm:GetParameter refused (AccessDeniedException): the AWS credentials in use may not call ssm:GetParameter, and the CDKToolkit stack could not be read either',
    });
    expect(check(out, 'stack PlanningReportExporter')).toMatchObject({ status: 'cannot tell', detail: 'cloudformation:DescribeStacks refused (AccessDenied): the AWS credentials in use may not call cloudformation:DescribeStacks' });
    expect(check(out, 'SES identity acme.example.com')).toMatchObject({ status: 'cannot tell', detail: 'ses:GetEmailIdentity refused (AccessDeniedException): the AWS credentials in use may not call ses:GetEmailIdentity' });
    expect(check(out, 'SES account').status).toBe('cannot tell');
    expectNothingInternal(out);
  });

  it('says when the stack is being deployed, has failed, or is older than this checkout', async () => {
    cloudFormation.stacks.set(STACK, { status: 'UPDATE_IN_PROGRESS', outputs: OUTPUTS });
    expect(check((await preflight()).out, 'stack PlanningReportExporter')).toMatchObject({ status: 'cannot tell', detail: 'UPDATE_IN_PROGRESS: run preflight again when it has finished' });
    cloudFormation.stacks.set(STACK, { status: 'ROLLBACK_COMPLETE', outputs: {} });
    const failed = await preflight();
    expect(failed.code).toBe(1);
    expect(check(failed.out, 'stack PlanningReportExporter')).toMatchObject({ status: 'not ok', detail: 'ROLLBACK_COMPLETE in eu-central-1' });
    expect(check(failed.out, 'stack PlanningReportExporter').fix).toMatch(/^CloudFormation console → Stacks → PlanningReportExporter → Events/);
    const { FanOutStateMachineArn: _fanOut, ...older } = OUTPUTS;
    cloudFormation.stacks.set(STACK, { status: 'UPDATE_COMPLETE', outputs: older });
    const outdated = await preflight();
    // Not blocking: the outputs a first e-mail needs are there.
    expect({ code: outdated.code, ...check(outdated.out, 'stack outputs') }).toEqual({
      code: 0,
      status: 'not ok',
      detail: 'missing FanOutStateMachineArn: the deployed stack is older than this checkout (does not block a first e-mail)',
      fix: 'npx cdk deploy PlanningReportExporter --outputs-file cdk-outputs.json',
    });
  });

  it('refuses the placeholder the stack generates, with the command that replaces it and no ARN in it', async () => {
    secrets.setSecret(SECRET_ARN, JSON.stringify({ email: '', apiKey: '', baseUrl: '', legacyBaseUrl: '', companyPrefix: '', placeholder: 'Xy12Ab34Cd56Ef78' }));
    const { code, out } = await preflight();
    expect(code).toBe(1);
    const secret = check(out, 'planning API secret');
    expect(secret.status).toBe('not ok');
    expect(secret.detail).toBe('the secret of output PlanningSecretId still holds the placeholder, not the planning API credentials: every export fails until it does');
    expect(secret.fix).toBe(
      `aws secretsmanager put-secret-value --region eu-central-1 --secret-id "$(aws cloudformation describe-stacks --stack-name PlanningReportExporter --region eu-central-1 --query "Stacks[0].Outputs[?OutputKey=='PlanningSecretId'].OutputValue" --output text)" --secret-string file://credentials.json (examples/credentials.example.json shows the fields; then rm credentials.json)`,
    );
    expect(check(out, 'planning API groups')).toMatchObject({ status: 'cannot tell', detail: 'not asked: the secret holds no usable credentials (see above)' });
    expectNothingInternal(out);
  });

  it('names the missing fields of an incomplete secret, a secret that is gone, and one it may not read', async () => {
    secrets.setSecret(SECRET_ARN, JSON.stringify({ ...sim.credentials(), legacyBaseUrl: undefined, companyPrefix: '' }));
    expect(check((await preflight()).out, 'planning API secret')).toMatchObject({ status: 'not ok', detail: 'the secret of output PlanningSecretId is missing fields legacyBaseUrl, companyPrefix' });
    secrets.deleteSecret(SECRET_ARN);
    expect(check((await preflight()).out, 'planning API secret')).toEqual({ status: 'not ok', detail: 'the secret of output PlanningSecretId does not exist in eu-central-1', fix: 'deploy the stack again (it creates the secret)' });
    secrets.failNext(1);
    expect(check((await preflight()).out, 'planning API secret')).toMatchObject({ status: 'cannot tell', detail: 'the secret of output PlanningSecretId: secretsmanager:GetSecretValue failed (InternalServiceError)' });
  });

  it('reads the secret --secret-id names, by its name', async () => {
    secrets.setSecret('team/planning-api', JSON.stringify(sim.credentials()));
    const { out } = await preflight(['--secret-id', 'team/planning-api']);
    expect(check(out, 'planning API secret')).toMatchObject({ status: 'ok', detail: `secret "team/planning-api": ${sim.credentials().email} at ${sim.credentials().baseUrl}, company prefix acme` });
  });

  it('names a wrong company prefix (blocking: a report reads the board items) and a group no report reads', async () => {
    secrets.setSecret(SECRET_ARN, JSON.stringify({ ...sim.credentials(), companyPrefix: 'acmee' }));
    sim.refuseGroup('okr');
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'API group Risk').status).toBe('ok');
    expect(check(out, 'API group Strategic Themes & OKRs')).toMatchObject({ status: 'not ok' });
    expect(check(out, 'API group Strategic Themes & OKRs').detail).toMatch(/^refused \(403\): this user may not read this group: .*\(no report reads okrs\) \(does not block a first e-mail\)$/);
    expect(check(out, 'API group PI Board Items').detail).toMatch(/\(a report reads boardItems\)$/);
    expect(check(out, 'API group PI Board Items').fix).toMatch(/^npm run discover -- --secret-id "\$\(aws cloudformation describe-stacks /);
    expect(check(out, 'planning API addresses')).toMatchObject({
      status: 'not ok',
      detail: `the legacy address ${sim.legacyBaseUrl} does not know the company prefix "acmee", so PI Objectives and PI Board Items cannot be read: set companyPrefix in the credentials document to your company's prefix (the first part of its login address, https://<companyPrefix>.…).`,
    });
    // PI Objectives refuses too, but no report reads them.
    expect(check(out, 'API group PI Objectives').detail).toMatch(/\(no report reads piObjectives\) \(does not block a first e-mail\)$/);
    expect(out).toMatch(/\n2 checks stand between this account and a first e-mail: API group PI Board Items; planning API addresses\n$/);
  });

  it('checks the SES identity: missing, pending, in another region, or not set at all', async () => {
    ses.identities.clear();
    expect(check((await preflight()).out, 'SES identity acme.example.com')).toEqual({
      status: 'not ok',
      detail: 'does not exist in eu-central-1',
      fix: 'aws sesv2 create-email-identity --email-identity acme.example.com --region eu-central-1, then publish the DKIM CNAME records it prints',
    });
    ses.identities.set('acme.example.com', { type: 'DOMAIN', status: 'PENDING' });
    expect(check((await preflight()).out, 'SES identity acme.example.com')).toEqual({
      status: 'not ok',
      detail: 'not verified (PENDING)',
      fix: 'publish the DKIM CNAME records: aws sesv2 get-email-identity --email-identity acme.example.com --region eu-central-1 --query DkimAttributes.Tokens (SES console → Identities → acme.example.com)',
    });
    writeCdkJson({ ...SETTINGS, sesIdentityArn: 'arn:aws:ses:us-east-1:123456789012:identity/acme.example.com' });
    expect(check((await preflight()).out, 'SES identity acme.example.com')).toMatchObject({ status: 'not ok', detail: "is in us-east-1, the stack in eu-central-1: SES sends from the stack's region" });
    // cdk.json's reports e-mail nobody, a pushed one does: the stack has no sender for it.
    writeCdkJson({ reports: [{ definition: { name: 'files-only', datasets: { risks: {} } } }] });
    const none = await preflight();
    expect(none.code).toBe(1);
    expect(check(none.out, 'SES identity')).toMatchObject({ status: 'not ok', detail: 'cdk.json sets no sesIdentityArn: the stack e-mails nobody' });
    // A cdk.json that synth refuses is refused here too, with synth's words.
    writeCdkJson({ reports: [{ definition: REPORT }] });
    const invalid = await preflight();
    expect(invalid).toMatchObject({ code: 1, out: '' });
    expect(invalid.err).toMatch(/^preflight failed: .*sesIdentityArn/s);
  });

  it('checks every sender against the identity: an address identity covers itself only, a domain its addresses', async () => {
    await storeReport({ ...REPORT, name: 'other-sender', email: { to: ['planning@acme.example.com'], from: 'reports@elsewhere.example.org' } });
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'sender')).toMatchObject({
      status: 'not ok',
      detail: "reports@elsewhere.example.org is not covered by acme.example.com: SES and the stack's permission allow only its addresses",
    });
    await store.remove('other-sender');
    ses.identities.set('reports@acme.example.com', { type: 'EMAIL_ADDRESS', status: 'SUCCESS' });
    writeCdkJson({ ...SETTINGS, sesIdentityArn: `arn:aws:ses:${REGION}:123456789012:identity/reports@acme.example.com` });
    expect(check((await preflight()).out, 'sender')).toMatchObject({ status: 'ok', detail: 'reports@acme.example.com may send through reports@acme.example.com' });
    writeCdkJson({ ...SETTINGS, mailFrom: 'team@acme.example.com', sesIdentityArn: `arn:aws:ses:${REGION}:123456789012:identity/reports@acme.example.com` });
    expect(check((await preflight()).out, 'sender').status).toBe('not ok');
  });

  it('in the sandbox, lists the recipients SES would refuse, with the command that verifies each', async () => {
    ses.account.ProductionAccessEnabled = false;
    ses.identities.set('example.net', { type: 'DOMAIN', status: 'SUCCESS' });
    ses.identities.set('ops@acme.example.com', { type: 'EMAIL_ADDRESS', status: 'SUCCESS' });
    await storeReport({ ...REPORT, name: 'many-readers', email: { to: ['rte@example.net', 'Ops@acme.example.com'], cc: ['boss@example.com'], onFailure: ['oncall@example.com'] } }, null);
    // The sender's domain is verified, which covers its addresses as recipients too.
    const { code, out } = await preflight();
    expect(code).toBe(1);
    expect(check(out, 'SES account')).toMatchObject({ status: 'not ok', detail: 'in the sandbox in eu-central-1: mail only to verified addresses and domains, 200 a day (does not block a first e-mail)' });
    expect(check(out, 'SES account').fix).toMatch(/^SES console → Account dashboard → Request production access/);
    expect(check(out, 'recipients (sandbox)')).toEqual({
      status: 'not ok',
      detail: 'not verified, so the sandbox refuses them: boss@example.com, oncall@example.com',
      fix: 'aws sesv2 create-email-identity --email-identity boss@example.com --region eu-central-1; aws sesv2 create-email-identity --email-identity oncall@example.com --region eu-central-1 (each opens the link AWS e-mails them), or leave the sandbox',
    });
    ses.identities.set('example.com', { type: 'DOMAIN', status: 'SUCCESS' });
    const verified = await preflight();
    expect(check(verified.out, 'recipients (sandbox)')).toMatchObject({ status: 'ok', detail: 'all 5 verified' });
    expect(verified.code).toBe(0);
    ses.account.SendingEnabled = false;
    expect(check((await preflight()).out, 'SES account')).toMatchObject({ status: 'not ok', detail: 'sending is paused for this account in eu-central-1' });
  });

  it('checks the stored reports: one that e-mails, invalid objects, missing or outdated schedules, the group', async () => {
    await store.remove('acme-weekly');
    await storeReport({ name: 'quiet', datasets: { risks: {} } });
    const quiet = await preflight();
    expect(quiet.code).toBe(1);
    expect(check(quiet.out, 'a report that e-mails')).toEqual({
      status: 'not ok',
      detail: 'none of quiet e-mails anyone (stored in the definitions bucket)',
      fix: 'add "email": {"to": [...]} to a report and push it: npm run reports -- push report.json --bucket definitions',
    });
    await storeReport(REPORT);
    await s3.client.send(new PutObjectCommand({ Bucket: 'definitions', Key: 'definitions/broken.json', Body: '{"definition": {"name": "broken", "datasets": {"risk": {}}}}' }));
    scheduler.schedules.delete(`${GROUP}/quiet`);
    scheduler.schedules.set(`${GROUP}/acme-weekly`, { ...scheduler.schedules.get(`${GROUP}/acme-weekly`)!, ScheduleExpression: 'cron(0 9 ? * MON *)' });
    const { code, out } = await preflight();
    expect(code).toBe(0);
    expect(check(out, 'definitions bucket definitions').status).toBe('not ok');
    expect(check(out, 'definitions bucket definitions').detail).toMatch(/^not valid reports, they never run: broken \(.*datasets.*\) \(does not block a first e-mail\)$/);
    expect(check(out, 'schedules')).toEqual({
      status: 'not ok',
      detail: 'not as stored: acme-weekly (outdated), quiet (missing) (does not block a first e-mail)',
      fix: 'push each again (npm run reports -- push <file> --bucket definitions): the upload re-syncs its schedule within a minute',
    });
    scheduler.groups.clear();
    expect(check((await preflight()).out, `schedule group ${GROUP}`)).toMatchObject({ status: 'not ok', detail: 'does not exist: the deployed stack creates it (does not block a first e-mail)' });
    cloudFormation.stacks.set(STACK, { status: 'UPDATE_COMPLETE', outputs: { ...OUTPUTS, DefinitionsBucketName: 'no-such-bucket' } });
    const gone = await preflight();
    expect(check(gone.out, 'definitions bucket no-such-bucket').status).toBe('cannot tell');
    // The reports of cdk.json stand in for the unreadable bucket's.
    expect(check(gone.out, 'a report that e-mails')).toMatchObject({ status: 'ok', detail: 'acme-weekly (cdk.json)' });
  });
});
