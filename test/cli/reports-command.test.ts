// @tier slow
import { join } from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { SuppressionList } from '../../shared/messages/recipients/suppressions';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { writeFileSync } from 'node:fs';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportsCommand } from '../../cli/reports-command';
import { silentLog } from '../../shared/core/logger';
import { EventBridgeReportScheduler } from '../../shared/definitions/scheduler-client';
import { syncReportSchedules } from '../../shared/definitions/schedule-sync';
import { S3Storage } from '../../shared/storage/s3-storage';
import { captureIo } from '../support/cli-io';
import { startS3rver, type S3rverHandle } from '../support/s3rver';
import { startSchedulerStub, type SchedulerStub } from '../support/scheduler-stub';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { withProcessEnv } from '../support/process-env';
import { storedReports } from '../support/door-settings';

const NOW = new Date('2026-11-24T06:00:00Z');
const report = (name: string, cron: string | null = 'cron(0 7 ? * MON *)') => ({
  definition: { name, title: `Train ${name}`, datasets: { risks: {}, piObjectives: {} } },
  schedule: cron === null ? null : { cron, timeZone: 'Europe/Berlin' },
});

let dir: TempDir;
let s3: S3rverHandle;
let stub: SchedulerStub;
let env: Record<string, string>;

beforeAll(async () => {
  dir = makeTempDir('reports-cli');
  s3 = await startS3rver({ bucket: 'definitions' });
  stub = await startSchedulerStub();
  env = {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: stub.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'eu-central-1',
  };
});
afterAll(async () => {
  await Promise.all([s3.close(), stub.close()]);
  dir.remove();
});

/** The command with the local servers: the SDK reads credentials and region from the process environment. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir.root, env);
  const code = await withProcessEnv(env, () => runReportsCommand(args, io, { now: () => NOW }));
  return { code, out: io.out(), err: io.err() };
}

describe('npm run reports', () => {
  it('validates 500 report files, stored form or bare definition, one line each', async () => {
    const files = Array.from({ length: 500 }, (_, i) => {
      const name = `train-${String(i).padStart(3, '0')}`;
      const file = `${name}.json`;
      writeFileSync(dir.path(file), JSON.stringify(i % 2 === 0 ? report(name) : report(name).definition));
      return file;
    });
    const result = await run(['validate', ...files]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toContain('ok  train-000.json: train-000, cron(0 7 ? * MON *) Europe/Berlin\n');
    expect(result.out).toContain('ok  train-001.json: train-001, on demand\n');
    expect(result.out).toMatch(/500 of 500 files valid\n$/);
  });

  it('lists every problem of every bad file with its path, and exits 1', async () => {
    writeFileSync(dir.path('bad.json'), JSON.stringify({ definition: { name: 'Bad Name', datasets: { risk: {} } }, schedule: { cron: 'cron(0 7 * * MON *)', timeZone: 'UTC' } }));
    writeFileSync(dir.path('broken.json'), '{"definition": ');
    writeFileSync(dir.path('twin.json'), JSON.stringify(report('train-000')));
    const result = await run(['validate', 'bad.json', 'broken.json', 'twin.json', 'train-000.json', 'missing.json']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('bad.json is invalid:\n');
    expect(result.err).toContain('  - definition.name: must be a slug');
    expect(result.err).toMatch(/ {2}- definition\.datasets: unknown field "risk" \(did you mean "risks"\?\)/);
    expect(result.err).toMatch(/ {2}- schedule\.cron: day-of-month \(3rd field\) or day-of-week \(5th field\) must be "\?"/);
    expect(result.err).toMatch(/broken\.json is invalid:\n {2}- \(root\): not valid JSON/);
    expect(result.err).toContain('train-000.json is invalid:\n  - definition.name: "train-000" is also the name in twin.json');
    expect(result.err).toMatch(/missing\.json is invalid:\n {2}- \(file\): the file was not found/);
    expect(result.out).toMatch(/1 of 5 files valid\n$/);
  });

  it('pushes nothing when one file is invalid, and pushes all once they are', async () => {
    const refused = await run(['push', 'train-002.json', 'bad.json', '--bucket', 'definitions']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('nothing pushed: fix the files above first');
    const store = storedReports(new S3Storage({ client: s3.client, bucket: 'definitions', prefix: '' }));
    expect(await store.names()).toEqual([]);

    const pushed = await run(['push', 'train-002.json', 'train-003.json', '--bucket', 'definitions']);
    expect(pushed.err).toBe('');
    expect(pushed.code).toBe(0);
    expect(pushed.out).toContain('pushed train-002 to s3://definitions/definitions/train-002.json\n');
    expect(await store.names()).toEqual(['train-002', 'train-003']);
    expect((await store.read('train-003'))?.schedule).toBeNull();
  });

  it('lists name, schedule and next run, says a schedule is missing until the sync made it, and removes reports', async () => {
    const listed = await run(['list', '--bucket', 'definitions', '--schedule-group', 'stack-reports']);
    expect(listed.code).toBe(1);
    expect(listed.out).toBe(
      [
        'train-002 — Train train-002',
        '  schedule  cron(0 7 ? * MON *) Europe/Berlin (SCHEDULE MISSING: re-sync it)',
        '  next run  2026-11-30 07:00 CET',
        '  last run  none yet',
        'train-003 — Train train-003',
        '  schedule  on demand',
        '  last run  none yet',
        '',
      ].join('\n'),
    );

    // What the sync function does on the upload's event.
    const scheduler = new EventBridgeReportScheduler(
      { groupName: 'stack-reports', targetArn: 'arn:aws:sqs:eu-central-1:123456789012:x', roleArn: 'arn:aws:iam::123456789012:role/x', deadLetterArn: 'arn:aws:sqs:eu-central-1:123456789012:x' },
      new SchedulerClient({ endpoint: stub.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
    );
    const store = storedReports(new S3Storage({ client: s3.client, bucket: 'definitions', prefix: '' }));
    await syncReportSchedules(['train-002', 'train-003'], { store, scheduler, log: silentLog });
    const synced = await run(['list', '--bucket', 'definitions', '--schedule-group', 'stack-reports']);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain('  schedule  cron(0 7 ? * MON *) Europe/Berlin\n  next run  2026-11-30 07:00 CET\n');

    const removed = await run(['remove', 'train-002', '--bucket', 'definitions']);
    expect(removed.out).toBe('removed train-002\n');
    await syncReportSchedules(['train-002'], { store, scheduler, log: silentLog });
    expect(stub.schedules.size).toBe(0);
    const unknown = await run(['remove', 'train-002', 'train-003', '--bucket', 'definitions']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe('error: no stored report named "train-002"; nothing removed\n');
    expect(await store.names()).toEqual(['train-003']);
  });

  it('reads the definitions bucket and the schedule group from cdk-outputs.json as link does, so push, list and remove need no --bucket', async () => {
    const deployed = dir.path('deployed');
    await mkdir(deployed, { recursive: true });
    const inDeployed = async (args: string[]) => {
      const io = captureIo(deployed, env);
      const code = await withProcessEnv(env, () => runReportsCommand(args, io, { now: () => NOW }));
      return { code, out: io.out(), err: io.err() };
    };
    const noOutputs = await inDeployed(['list']);
    expect(noOutputs.code).toBe(2);
    expect(noOutputs.err).toContain('give --bucket <DefinitionsBucketName> or --dir <folder>, or run where cdk-outputs.json is (npx cdk deploy --outputs-file cdk-outputs.json)');

    await writeFile(join(deployed, 'cdk-outputs.json'), JSON.stringify({ PlanningReportExporter: { ApiUrl: 'https://x.example/', DefinitionsBucketName: 'definitions', ScheduleGroupName: 'stack-reports' } }, null, 2));
    await writeFile(join(deployed, 'train-040.json'), JSON.stringify({ definition: { name: 'train-040', datasets: { risks: {} } }, schedule: null }));
    expect(await inDeployed(['push', 'train-040.json'])).toMatchObject({ code: 0, err: '' });
    const store = storedReports(new S3Storage({ client: s3.client, bucket: 'definitions', prefix: '' }));
    expect(await store.names()).toContain('train-040');
    const listed = await inDeployed(['list']);
    expect(listed.out).toContain('train-040\n  schedule  on demand\n');
    expect(await inDeployed(['remove', 'train-040'])).toEqual({ code: 0, out: 'removed train-040\n', err: '' });
    expect(await store.names()).not.toContain('train-040');
  });

  it('pushes the demo report, saying what to set for its webhook secret rather than only that it cannot be read', async () => {
    const pushed = await run(['push', join(import.meta.dirname, '..', '..', 'examples', 'demo-report.json'), '--dir', 'demo-defs']);
    expect(pushed.code).toBe(0);
    const warnings = pushed.out.split('\n').filter((line) => line.includes('warning:'));
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) {
      expect(warning).toContain('store the webhook URLs in a secret named planning-report-exporter/webhooks/<name> and set delivery.channels[].webhook.secretId to it');
    }
  });

  it('keeps reports in a local folder with --dir, and answers a wrong command line with its usage', async () => {
    const pushed = await run(['push', 'train-004.json', '--dir', 'local-defs']);
    expect(pushed.code).toBe(0);
    expect(pushed.out).toContain(`pushed train-004 to ${dir.path('local-defs/definitions/train-004.json')}\n`);
    // The list command it suggests is one that runs, on the same folder.
    const suggested = /check with: npm run reports -- (list .*)\n/.exec(pushed.out)![1]!;
    expect(suggested).toBe('list --dir local-defs');
    const listed = await run(suggested.split(' '));
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('train-004 — Train train-004\n  schedule  cron(0 7 ? * MON *) Europe/Berlin\n');

    const both = await run(['list', '--dir', 'local-defs', '--bucket', 'definitions']);
    expect(both.code).toBe(2);
    expect(both.err).toBe('error: give exactly one of --bucket or --dir (npm run reports -- --help lists the options)\n');
    // --out names where the local runs are; the reports come from a store, and the error says which to give.
    const outAlone = await run(['list', '--out', 'out']);
    expect(outAlone.code).toBe(2);
    expect(outAlone.err).toMatch(/^error: --out gives the last runs of local exports; name the reports too: --dir <folder>/);
    expect(outAlone.err.split('\n')).toHaveLength(2);
    expect((await run(['list', '--dir', 'local-defs', '--out', 'out'])).code).toBe(0);
    expect((await run(['--help'])).out).toContain('list --bucket <b> | --dir <folder>');
    // A bare definition dropped into the store's folder by hand is said to be one, with the command that stores it, and fails the list.
    writeFileSync(dir.path('local-defs/definitions/bare.json'), JSON.stringify(report('bare').definition));
    const withBare = await run(['list', '--dir', 'local-defs']);
    expect(withBare.code).toBe(1);
    expect(withBare.out).toMatch(/bare\n {2}INVALID: .*\n {4}- \(root\): a bare report definition, not a stored report .*store it with npm run reports -- push <file>/);
    expect((await run(['publish'])).err).toMatch(/^error: unknown command "publish"/);
    expect((await run(['validate'])).err).toMatch(/^error: name the files to check/);
    expect((await run(['--help'])).out).toMatch(/^usage: npm run reports -- <command>/);
  });

  it('lists the recipients a report stopped e-mailing, and e-mails one again on the owner\'s word', async () => {
    // Suppressions are read for the report's recipients.
    const mailed = report('train-005');
    writeFileSync(dir.path('train-005.json'), JSON.stringify({ ...mailed, definition: { ...mailed.definition, email: { to: ['team@example.test', 'Gone@Example.test'] } } }));
    expect((await run(['push', 'train-005.json', '--dir', 'local-defs'])).code).toBe(0);
    // What an unsubscribe click or a bounce leaves in the ledger of local exports (--out).
    await new SuppressionList(new LocalLedger(dir.path('exports/.ledger'))).suppress('train-005', 'Gone@Example.test', 'bounced', NOW);
    const listed = await run(['list', '--dir', 'local-defs', '--out', 'exports']);
    expect(listed.out).toContain(`  not e-mailed  gone@example.test: bounced since ${NOW.toISOString()} (npm run reports -- resubscribe train-005 gone@example.test)\n`);
    const lifted = await run(['resubscribe', 'train-005', 'gone@example.test', '--out', 'exports']);
    expect(lifted).toEqual({ code: 0, out: 'gone@example.test gets "train-005" by e-mail again from its next run\n', err: '' });
    expect((await run(['list', '--dir', 'local-defs', '--out', 'exports'])).out).not.toContain('not e-mailed');
    expect((await run(['resubscribe', 'train-005', '--out', 'exports'])).err).toMatch(/^error: give the report and one address/);
    const mistyped = await run(['resubscribe', 'train-005', 'gone@example', '--out', 'exports']);
    expect(mistyped.code).not.toBe(0);
    expect(mistyped.err).toMatch(/^error: the address must be a plain e-mail address like team@example.com, not "gone@example"/);
  });

  it('puts back what was stored when one upload fails: the report it replaced as it was, the one it added removed', async () => {
    const store = storedReports(new S3Storage({ client: s3.client, bucket: 'definitions', prefix: '' }));
    const before = report('train-010');
    await store.put({ definition: { ...before.definition, title: 'Before the push' }, schedule: before.schedule });
    for (const name of ['train-010', 'train-011', 'train-012']) writeFileSync(dir.path(`${name}.json`), JSON.stringify(report(name)));
    s3.refuseWrites(['definitions/train-012.json']);
    try {
      const failed = await run(['push', 'train-010.json', 'train-011.json', 'train-012.json', '--bucket', 'definitions']);
      expect(failed.code).toBe(1);
      expect(failed.out).not.toContain('pushed');
      expect(failed.err).toContain('error: could not store train-012 at s3://definitions/definitions/train-012.json');
      expect(failed.err).toContain('put back what was there before:\n  - removed train-011, which this push added\n  - restored train-010 as it was\n');
    } finally {
      s3.refuseWrites([]);
    }
    expect(await store.names()).toEqual(['train-003', 'train-010']);
    expect((await store.read('train-010', { fresh: true }))?.parsed.title).toBe('Before the push');
  });

  it('refuses a report named like another report\'s delivery, in one validate and against the stored reports, naming both', async () => {
    const port = { definition: { name: 'port', datasets: { risks: {} }, deliveries: [{ name: 'b', filter: { registers: ['OPS'] } }] }, schedule: null };
    writeFileSync(dir.path('port.json'), JSON.stringify(port));
    writeFileSync(dir.path('port--b.json'), JSON.stringify(report('port--b')));
    const together = await run(['validate', 'port.json', 'port--b.json']);
    expect(together.code).toBe(1);
    expect(together.err).toContain(
      'port--b.json is invalid:\n  - definition.name: delivery "b" of report "port" (port.json) and report "port--b" (port--b.json) would both run as "port--b", writing the same folder and latest.json; rename one of them\n',
    );
    expect(together.out).toMatch(/1 of 2 files valid\n$/);

    const store = storedReports(new S3Storage({ client: s3.client, bucket: 'definitions', prefix: '' }));
    expect((await run(['push', 'port.json', '--bucket', 'definitions'])).code).toBe(0);
    const later = await run(['push', 'port--b.json', 'train-011.json', '--bucket', 'definitions']);
    expect(later.code).toBe(1);
    expect(later.err).toBe(
      'error: nothing stored:\n  - delivery "b" of report "port" (stored at s3://definitions/definitions/port.json) and report "port--b" would both run as "port--b", writing the same folder and latest.json; rename one of them\n',
    );
    expect(await store.names()).toEqual(['port', 'train-003', 'train-010']);
    // Pushing the report again with the delivery renamed is no clash: its stored version is replaced.
    writeFileSync(dir.path('port.json'), JSON.stringify({ ...port, definition: { ...port.definition, deliveries: [{ name: 'c' }] } }));
    expect((await run(['push', 'port.json', 'port--b.json', '--bucket', 'definitions'])).code).toBe(0);
  });
});
