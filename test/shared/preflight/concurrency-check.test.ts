import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkCapacity, checkConcurrency, type ConcurrencyTarget } from '../../../shared/preflight/concurrency-check';
import { createSesAccountClient, SesV2AccountReader } from '../../../shared/preflight/ses-account';
import { startSesAccountStub, type SesAccountStub } from '../../support/ses-account-stub';
import { createLambdaAccountClient, LambdaAccountReader } from '../../../shared/preflight/lambda-account';
import { PreflightReadError } from '../../../shared/preflight/read-error';
import { REFUSAL_MESSAGE } from '../../support/http-stub';
import { startLambdaAccountStub, type LambdaAccountStub } from '../../support/lambda-account-stub';
import { rejectionOf } from '../../support/rejection';
import { setProcessEnv } from '../../support/process-env';

/**
 * Preflight's Lambda concurrency check through the real SDK client against a local stand-in of
 * Lambda's account calls (REST-JSON on port 0): what the adapter asks, and the three answers.
 */
const REGION = 'eu-central-1';
const FUNCTION = 'PlanningReportExporter-ExportReport1A2B3C4D';
let stub: LambdaAccountStub;
let reader: LambdaAccountReader;
let restoreEnv: () => void;

beforeAll(async () => {
  stub = await startLambdaAccountStub();
  restoreEnv = setProcessEnv({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_MAX_ATTEMPTS: '1' });
  reader = new LambdaAccountReader(createLambdaAccountClient(REGION, stub.endpoint));
});
afterAll(async () => {
  restoreEnv();
  await stub.close();
});
beforeEach(() => {
  Object.assign(stub.limit, { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 });
  stub.reserved.clear();
  stub.refuse = false;
  stub.requests.length = 0;
});

const target = (fields: Partial<ConcurrencyTarget> = {}): ConcurrencyTarget => ({ region: REGION, reserved: undefined, functionName: undefined, deployed: false, ...fields });

describe('the Lambda account adapter', () => {
  it('asks GetAccountSettings and GetFunctionConcurrency, signed, and reads their answers', async () => {
    Object.assign(stub.limit, { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 994 });
    stub.reserved.set(FUNCTION, 6);
    expect(await reader.account()).toEqual({ accountLimit: 1000, unreserved: 994 });
    expect(await reader.reserved(FUNCTION)).toBe(6);
    expect(await reader.reserved('no-reservation')).toBeUndefined();
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /2016-08-19/account-settings',
      `GET /2019-09-30/functions/${FUNCTION}/concurrency`,
      'GET /2019-09-30/functions/no-reservation/concurrency',
    ]);
    for (const request of stub.requests) expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/eu-central-1\/lambda\/aws4_request/);
  });

  it('turns a refusal into a read error that names the action and no ARN', async () => {
    stub.refuse = true;
    const error = await rejectionOf(reader.account());
    expect(error).toBeInstanceOf(PreflightReadError);
    expect(error.message).toBe('lambda:GetAccountSettings refused (AccessDeniedException): the AWS credentials in use may not call lambda:GetAccountSettings');
    expect(error.message).not.toContain(REFUSAL_MESSAGE.slice(0, 20));
  });
});

describe('the Lambda concurrency check', () => {
  it('is ok on a new account (quota 10) when cdk.json reserves nothing, the default', async () => {
    const check = await checkConcurrency(target(), reader);
    expect(check).toEqual({
      area: 'account',
      name: 'Lambda concurrency',
      status: 'ok',
      blocks: false,
      detail: 'cdk.json reserves none, so the stack deploys on this account (quota 10 in eu-central-1, 10 unreserved)',
    });
  });

  it('is not ok when a reservation does not fit, and names the quota to ask for and the command', async () => {
    const check = await checkConcurrency(target({ reserved: 6 }), reader);
    expect(check.status).toBe('not ok');
    expect(check.blocks).toBe(true);
    expect(check.detail).toBe(
      'cdk.json reserves 6 slots for export-report, which would leave 4 of the quota 10 in eu-central-1 unreserved (Lambda keeps 10), so the deploy would be refused',
    );
    expect(check.fix).toBe(
      'remove exportReservedConcurrency from cdk.json (the default), or ask AWS for a quota of at least 106: Service Quotas → AWS Lambda → Concurrent executions, ' +
        'or aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 106 --region eu-central-1',
    );
  });

  it('counts what other functions reserve, but not what the deployed export function already holds', async () => {
    Object.assign(stub.limit, { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 94 });
    stub.reserved.set(FUNCTION, 6);
    // Others reserve 900, ours 6: reserving 6 again leaves 94, under Lambda's 100.
    const short = await checkConcurrency(target({ reserved: 6, functionName: FUNCTION, deployed: true }), reader);
    expect(short.status).toBe('not ok');
    expect(short.blocks).toBe(false);
    expect(short.fix).toContain('--desired-value 1006');
    stub.limit.UnreservedConcurrentExecutions = 194;
    const fits = await checkConcurrency(target({ reserved: 6, functionName: FUNCTION, deployed: true }), reader);
    expect(fits).toMatchObject({ status: 'ok', detail: 'the 6 slots cdk.json reserves for export-report fit (quota 1000 in eu-central-1; 194 stay unreserved, Lambda keeps 100)' });
  });

  it('cannot tell when the account cannot be read, and blocks only while a reservation awaits its first deploy', async () => {
    stub.refuse = true;
    const reserving = await checkConcurrency(target({ reserved: 6 }), reader);
    expect(reserving).toMatchObject({ status: 'cannot tell', blocks: true });
    expect(reserving.detail).toBe(
      'lambda:GetAccountSettings refused (AccessDeniedException): the AWS credentials in use may not call lambda:GetAccountSettings; cdk.json reserves 6 slots for export-report',
    );
    expect(reserving.fix).toMatch(/^allow lambda:GetAccountSettings and lambda:GetFunctionConcurrency/);
    const none = await checkConcurrency(target(), reader);
    expect(none).toMatchObject({ status: 'cannot tell', blocks: false, fix: undefined });
  });
});

describe('the capacity at one hour', () => {
  let ses: SesAccountStub;
  beforeAll(async () => {
    ses = await startSesAccountStub();
  });
  afterAll(async () => {
    await ses.close();
  });

  it('says how many readers the SES send quota and how many reports the Lambda quota carry within 15 minutes', async () => {
    Object.assign(ses.sendQuota, { MaxSendRate: 14, Max24HourSend: 50_000 });
    Object.assign(stub.limit, { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 });
    const check = await checkCapacity(REGION, new SesV2AccountReader(createSesAccountClient(REGION, ses.endpoint)), reader);
    expect(check).toMatchObject({ status: 'ok', blocks: false });
    // 14 a second for 900 s; 1,000 slots for 900 s at 10 s a report.
    expect(check.detail).toContain('SES sends 14 a second, 50000 a day in eu-central-1: 11340 readers at one hour (3780 reports of 3)');
    expect(check.detail).toContain("Lambda's 1000 unreserved of quota 1000 run about 90000 small reports (10 s each)");
  });

  it('counts the scheduled runs the queue takes at once, within what the account leaves unreserved', async () => {
    Object.assign(ses.sendQuota, { MaxSendRate: 14, Max24HourSend: 50_000 });
    Object.assign(stub.limit, { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 });
    const account = new SesV2AccountReader(createSesAccountClient(REGION, ses.endpoint));
    const five = await checkCapacity(REGION, account, reader, 5);
    // 5 slots for 900 s at 10 s a report.
    expect(five.detail).toContain("5 scheduled runs at once (scheduledConcurrency 5, Lambda's 1000 unreserved of quota 1000) run about 450 small reports (10 s each)");
    Object.assign(stub.limit, { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 });
    const more = await checkCapacity(REGION, account, reader, 100);
    expect(more.detail).toContain("10 scheduled runs at once (scheduledConcurrency 100, Lambda's 10 unreserved of quota 10) run about 900 small reports");
  });

  it('caps the readers by the daily quota (the sandbox: 200 a day) and says what it could not read', async () => {
    Object.assign(ses.sendQuota, { MaxSendRate: 1, Max24HourSend: 200 });
    stub.refuse = true;
    const check = await checkCapacity(REGION, new SesV2AccountReader(createSesAccountClient(REGION, ses.endpoint)), reader);
    expect(check.status).toBe('ok');
    expect(check.detail).toContain('200 readers at one hour (66 reports of 3)');
    expect(check.detail).toMatch(/not read: Lambda: /);
  });
});
