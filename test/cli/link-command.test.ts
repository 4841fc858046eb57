import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLinkCommand } from '../../cli/link-command';
import { LOCAL_API_URL, LOCAL_LINK_KEYS } from '../../cli/local-link-keys';
import { runReportsCommand } from '../../cli/reports-command';
import { LedgerRunLinkLedger } from '../../shared/http/run-link-ledger';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { verifyRunLinkToken } from '../../shared/links/run-link-token';
import { captureIo } from '../support/cli-io';
import { startS3rver, type S3rverHandle } from '../support/s3rver';
import { makeTempDir } from '../support/temp-dir';
import { withProcessEnv } from '../support/process-env';

const now = new Date('2026-11-23T06:00:00Z');
const deployedKey = { id: 'prod-1', secret: 'p'.repeat(48) };

describe('link command', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'link-cmd-'));
    await writeFile(
      join(dir, 'cdk-outputs.json'),
      JSON.stringify({ PlanningReportExporter: { ApiUrl: 'https://abc.execute-api.eu-central-1.amazonaws.com', LinkKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:link-keys', LedgerTableName: 'run-ledger-abc' } }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a run link for the local stack, signed with the local key, for --days', async () => {
    const io = captureIo(dir);
    expect(await runLinkCommand(['--report', 'demo-weekly', '--days', '30', '--local'], io, { clock: () => now })).toBe(0);
    const url = io.out().trim();
    expect(url.startsWith(`${LOCAL_API_URL}/run/`)).toBe(true);
    const claims = verifyRunLinkToken(url.slice(`${LOCAL_API_URL}/run/`.length), LOCAL_LINK_KEYS, now);
    expect(claims).toMatchObject({ report: 'demo-weekly', kid: 'k2', exp: Math.floor(now.getTime() / 1000) + 30 * 86400 });
    expect(io.err()).toContain(`id ${claims.jti}`);
  });

  it('refuses a local link for a report the local stack does not serve, in one line naming the fix, and exits 1', async () => {
    const io = captureIo(dir);
    expect(await runLinkCommand(['--local', '--report', 'nosuch'], io, { clock: () => now })).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toBe('error: the local stack serves only report "demo-weekly" (examples/demo-report.json), not "nosuch": npm run link -- --local --report demo-weekly\n');
  });

  it('prints a link for a deployed stack from cdk-outputs.json, signed with the secret\'s current key', async () => {
    const io = captureIo(dir);
    const asked: string[] = [];
    const code = await runLinkCommand(['--report', 'acme-weekly'], io, {
      clock: () => now,
      reportNames: () => Promise.resolve(['acme-weekly']),
      deployedKey: (secretId) => Promise.resolve(void asked.push(secretId)).then(() => deployedKey),
    });
    expect(code, io.err()).toBe(0);
    expect(asked).toEqual(['arn:aws:secretsmanager:eu-central-1:123456789012:secret:link-keys']);
    const url = io.out().trim();
    const base = 'https://abc.execute-api.eu-central-1.amazonaws.com/run/';
    expect(url.startsWith(base)).toBe(true);
    expect(verifyRunLinkToken(url.slice(base.length), { current: deployedKey }, now).report).toBe('acme-weekly');
  });

  it('checks the report name against cdk.json, and names the problem for bad input', async () => {
    const unknown = captureIo(dir);
    expect(await runLinkCommand(['--report', 'nope'], unknown, { reportNames: () => Promise.resolve(['acme-weekly']) })).toBe(1);
    expect(unknown.err()).toContain(
      'no report of that name in cdk.json (configured: acme-weekly) or in the definitions bucket, which is not known here: give --outputs with a DefinitionsBucketName output, or --bucket',
    );

    const days = captureIo(dir);
    expect(await runLinkCommand(['--report', 'acme-weekly', '--days', '91', '--local'], days)).toBe(2);
    expect(days.err()).toContain('--days must be a whole number from 1 to 90');

    const half = captureIo(dir);
    expect(await runLinkCommand(['--report', 'acme-weekly', '--api-url', 'https://x'], half)).toBe(2);
    expect(half.err()).toContain('give both --api-url and --key-secret');

    const noOutputs = captureIo(tmpdir());
    expect(await runLinkCommand(['--report', 'acme-weekly', '--outputs', 'missing.json'], noOutputs, { reportNames: () => Promise.resolve(['acme-weekly']) })).toBe(1);
    expect(noOutputs.err()).toContain('--outputs-file cdk-outputs.json');
  });

  it('takes a definition file as export does, linking the report it names, and says "did you mean" for a near name', async () => {
    const io = captureIo(join(import.meta.dirname, '..', '..'));
    expect(await runLinkCommand(['--local', '--report', 'examples/demo-report.json'], io, { clock: () => now })).toBe(0);
    expect(verifyRunLinkToken(io.out().trim().slice(`${LOCAL_API_URL}/run/`.length), LOCAL_LINK_KEYS, now).report).toBe('demo-weekly');
    expect(io.err()).toMatch(/^run link for "demo-weekly": id /);

    const typo = captureIo(dir);
    expect(await runLinkCommand(['--report', 'acme-weekyl'], typo, { reportNames: () => Promise.resolve(['acme-weekly', 'acme-monthly']) })).toBe(1);
    expect(typo.err()).toBe(
      `error: "acme-weekyl" was not found: no file ${join(dir, 'acme-weekyl')} and no report of that name in cdk.json (configured: acme-weekly, acme-monthly) or in the definitions bucket, which is not known here: give --outputs with a DefinitionsBucketName output, or --bucket (did you mean "acme-weekly"?); --report takes the name of a report the stack knows, or its definition file\n`,
    );
  });

  it('reads the report names from this repository\'s cdk.json by default', async () => {
    const io = captureIo(join(import.meta.dirname, '..', '..'));
    expect(await runLinkCommand(['--report', 'not-configured-anywhere'], io)).toBe(1);
    expect(io.err()).toMatch(/configured: .*acme-weekly/);
  });

  it('revokes a link by its id in the deployed stack\'s ledger (table from cdk-outputs.json)', async () => {
    const ledger = new LocalLedger(join(dir, 'ledger'));
    const tables: string[] = [];
    const io = captureIo(dir);
    const id = 'GDRKq1PiRfJsD8bvt3b4iQ';
    const code = await runLinkCommand(['--revoke', id], io, { clock: () => now, ledger: (table) => (tables.push(table), ledger) });
    expect(code, io.err()).toBe(0);
    expect(tables).toEqual(['run-ledger-abc']);
    expect(io.out()).toContain(`run link ${id} is revoked`);
    expect(await new LedgerRunLinkLedger(ledger).isRevoked(id)).toBe(true);
    expect(await new LedgerRunLinkLedger(ledger).isRevoked('AAAAAAAAAAAAAAAAAAAAAA')).toBe(false);

    const bad = captureIo(dir);
    expect(await runLinkCommand(['--revoke', 'not-an-id'], bad)).toBe(2);
    expect(bad.err()).toContain('--revoke takes the 22-character id');
    const mixed = captureIo(dir);
    expect(await runLinkCommand(['--revoke', id, '--report', 'acme-weekly'], mixed)).toBe(2);
  });
});

describe('link command: reports pushed to the definitions bucket (s3rver)', () => {
  /** This repository: its cdk.json configures acme-weekly, and not the pushed report. */
  const REPO = join(import.meta.dirname, '..', '..');
  const temp = makeTempDir('link-store');
  const outputs = temp.path('cdk-outputs.json');
  const API_URL = 'https://abc.execute-api.eu-central-1.amazonaws.com';
  let s3: S3rverHandle;
  let env: Record<string, string>;

  /** The command with s3rver: the SDK reads credentials and region from the process environment. */
  async function withEnv<T>(run: () => Promise<T>): Promise<T> {
    return withProcessEnv(env, run);
  }
  const link = async (args: string[]) => {
    const io = captureIo(REPO, env);
    const code = await withEnv(() => runLinkCommand(args, io, { clock: () => now, deployedKey: () => Promise.resolve(deployedKey) }));
    return { code, out: io.out(), err: io.err() };
  };
  const reportOf = (url: string) => verifyRunLinkToken(url.trim().slice(`${API_URL}/run/`.length), { current: deployedKey }, now).report;

  beforeAll(async () => {
    s3 = await startS3rver({ bucket: 'definitions' });
    env = { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'eu-central-1' };
    await writeFile(
      outputs,
      JSON.stringify({ PlanningReportExporter: { ApiUrl: API_URL, LinkKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:link-keys', DefinitionsBucketName: 'definitions' } }),
    );
    await writeFile(temp.path('pushed.json'), JSON.stringify({ definition: { name: 'pushed-weekly', datasets: { risks: {} } }, schedule: null }));
    // Added the documented way: npm run reports -- push.
    const push = captureIo(temp.root, env);
    expect(await withEnv(() => runReportsCommand(['push', 'pushed.json', '--bucket', 'definitions'], push)), push.err()).toBe(0);
  });
  afterAll(async () => {
    await s3.close();
    temp.remove();
  });

  it('finds a pushed report that cdk.json does not configure, in the bucket the stack outputs name', async () => {
    const result = await link(['--report', 'pushed-weekly', '--outputs', outputs]);
    expect(result.code, result.err).toBe(0);
    expect(reportOf(result.out)).toBe('pushed-weekly');
  });

  it('finds it in the bucket --bucket names, beside --api-url and --key-secret', async () => {
    const result = await link(['--report', 'pushed-weekly', '--api-url', API_URL, '--key-secret', 'arn:x', '--bucket', 'definitions']);
    expect(result.code, result.err).toBe(0);
    expect(reportOf(result.out)).toBe('pushed-weekly');
  });

  it('still finds a report of cdk.json', async () => {
    const result = await link(['--report', 'acme-weekly', '--outputs', outputs]);
    expect(result.code, result.err).toBe(0);
    expect(reportOf(result.out)).toBe('acme-weekly');
  });

  it('names both places, and what each holds, when the report is in neither', async () => {
    const result = await link(['--report', 'nowhere-weekly', '--outputs', outputs]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toMatch(
      /^error: "nowhere-weekly" was not found: no file \S*nowhere-weekly and no report of that name in cdk\.json \(configured: [^)]*acme-weekly[^)]*\) or in the definitions bucket "definitions" \(stored: pushed-weekly\); --report takes the name of a report the stack knows, or its definition file\n$/,
    );
  });
});
