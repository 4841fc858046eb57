import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { startDynalite, type DynaliteHandle } from '../support/dynalite';
import { startS3rver, type S3rverHandle } from '../support/s3rver';
import { captureIo } from '../support/cli-io';
import { dataRequests } from '../support/list-calls';
import { operatorFindings, type FieldAuditFigures } from '../../shared/report/dataset/field-audit';
import { setProcessEnv } from '../support/process-env';

describe('export command', () => {
  let sim: RunningSimulator;
  let s3: S3rverHandle;
  let dynamo: DynaliteHandle;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    s3 = await startS3rver({ bucket: 'reports' });
    dynamo = await startDynalite({ tableName: 'cli-ledger' });
    dir = await mkdtemp(join(tmpdir(), 'export-cmd-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'cli-test', datasets: { risks: {}, boardItems: {} } }));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), s3.close(), dynamo.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('says the addresses look swapped when baseUrl and legacyBaseUrl are, as discover does, and exits 1', async () => {
    const credentials = sim.credentials();
    await writeFile(join(dir, 'swapped.json'), JSON.stringify({ ...credentials, baseUrl: credentials.legacyBaseUrl, legacyBaseUrl: credentials.baseUrl }));
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--credentials', 'swapped.json', '--out', 'swapped-out'], io)).toBe(1);
    expect(io.err()).toContain(`baseUrl and legacyBaseUrl look swapped: baseUrl ${credentials.legacyBaseUrl} answers the v1 paths (/api/v1/…)`);
    expect(io.err()).toContain('Swap the two URLs in the credentials document.');
  });

  it('refuses a baseUrl ending in the /api/v1 the client adds, naming the address to set', async () => {
    const credentials = sim.credentials();
    await writeFile(join(dir, 'api-path.json'), JSON.stringify({ ...credentials, baseUrl: `${credentials.baseUrl}/api/v1/` }));
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--credentials', 'api-path.json', '--out', 'api-path-out'], io)).toBe(1);
    expect(io.err()).toContain(`ends in /api/v1/, which the client adds itself (/api/v1/…): set baseUrl to ${credentials.baseUrl}`);
  });

  it('exports into a local directory, shows progress and prints where the files went', async () => {
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out'], io);
    expect(code).toBe(0);
    expect(io.out()).toMatch(/dataset risks/);
    expect(io.out()).toMatch(/export complete/);
    expect(io.out()).toContain(join(dir, 'out', 'cli-test', 'latest.json'));
    expect(io.out() + io.err()).not.toContain(sim.credentials().apiKey);
    const latest = JSON.parse(await readFile(join(dir, 'out', 'cli-test', 'latest.json'), 'utf8'));
    expect(latest.report).toBe('cli-test');
    // The simulator serves fields no column holds (undocumented extras, and fields left out on purpose,
    // which carry their reason): one line counts the undocumented ones (the others are no news) and points to the manifest.
    const manifest = JSON.parse(await readFile(join(dir, 'out', latest.manifest), 'utf8')) as {
      summary: FieldAuditFigures & { unexportedFields: Record<string, { path: string; reason?: string }[]> };
    };
    const fields = Object.entries(manifest.summary.unexportedFields).flatMap(([table, list]) => list.map((f) => ({ table, ...f })));
    expect(fields.filter((f) => f.reason === undefined).map((f) => `${f.table}: ${f.path}`)).toEqual([
      'risks: register.matrixSize', 'risks: score', 'board-items: board.isPinned',
    ]);
    // The count takes in the shape warnings too (the documentation's vocabulary serves one more: SIMULATOR_VOCABULARY=docs).
    const findings = operatorFindings(manifest.summary);
    expect(findings.length).toBeGreaterThanOrEqual(3);
    expect(io.out()).toContain(
      `note     ${findings.length} fields the server sent are in no column or of an unexpected shape (board-items, risks): see summary.unexportedFields and summary.shapeWarnings in the manifest`,
    );
    // The next run compared with this one finds the same fields: nothing to say again (--verbose says it every time).
    const again = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out'], again)).toBe(0);
    expect(again.out()).not.toContain('note ');
  });

  it('publishes a report with readers without sending anything, and writes its messages into --outbox once per run', async () => {
    const withReaders = {
      name: 'cli-readers',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: ['team@example.test'] },
      delivery: { channels: [{ type: 'slack', webhook: { secretId: 'chat', key: 'slack' } }] },
    };
    await writeFile(join(dir, 'readers.json'), JSON.stringify(withReaders));
    const args = ['--report', 'readers.json', '--credentials', 'credentials.json', '--out', 'out-readers'];
    const plain = captureIo(dir);
    expect(await runExportCommand([...args, '--run-id', 'plain'], plain)).toBe(0);
    expect(plain.out()).toContain('  messages not sent: nothing here sends messages (npm run export -- --outbox <dir> writes them to files)\n');

    const io = captureIo(dir);
    expect(await runExportCommand([...args, '--run-id', 'boxed', '--outbox', 'outbox'], io)).toBe(0);
    const folder = (await readdir(join(dir, 'outbox', 'cli-readers'), { recursive: true })).find((p) => p.endsWith('run=boxed'))!;
    const written = (await readdir(join(dir, 'outbox', 'cli-readers', folder))).sort();
    expect(written).toEqual(['email.eml', 'email.html', 'slack.json']);
    expect(io.out()).toContain(`  messages (written, not sent):\n    ${join(dir, 'outbox', 'cli-readers', folder, 'email.eml')}\n`);
    const slack = JSON.parse(await readFile(join(dir, 'outbox', 'cli-readers', folder, 'slack.json'), 'utf8')) as { blocks: unknown[] };
    expect(slack.blocks.length).toBeGreaterThan(0);

    // A rerun of the same run finds the messages claimed in the run ledger: nothing is written twice.
    await rm(join(dir, 'outbox'), { recursive: true });
    const again = captureIo(dir);
    expect(await runExportCommand([...args, '--run-id', 'boxed', '--outbox', 'outbox'], again)).toBe(0);
    expect(again.out()).toContain('  messages not sent again: an earlier attempt of run boxed sent its messages\n');
  });

  it('reports a run published whose latest.json could not be written, and a rerun of the run id repairs latest.json', async () => {
    const args = (runId: string) => ['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out-latest', '--run-id', runId];
    expect(await runExportCommand(args('first'), captureIo(dir))).toBe(0);
    // A directory where latest.json goes: its write fails as a 503 would, after the run completed.
    const latestPath = join(dir, 'out-latest', 'cli-test', 'latest.json');
    await rm(latestPath);
    await mkdir(join(latestPath, 'blocked'), { recursive: true });
    const io = captureIo(dir);
    expect(await runExportCommand(args('second'), io)).toBe(0);
    expect(io.out()).toMatch(/export complete\n {2}run {6}second\n/);
    expect(io.out()).toMatch(/latest {3}.*latest\.json NOT updated \(see the warning\)/);
    expect(io.err()).toMatch(/^warning: latest\.json could not be updated \(.+\); the run is published and the next run, or a rerun of run id "second", writes latest\.json again\n$/);
    expect(io.err()).not.toContain('no run was published');

    await rm(latestPath, { recursive: true });
    const rerun = captureIo(dir);
    expect(await runExportCommand(args('second'), rerun)).toBe(0);
    expect(rerun.out()).toMatch(/this run id had already completed; nothing was exported again/);
    expect(rerun.out()).toContain(`  latest   ${latestPath}`);
    const latest = JSON.parse(await readFile(latestPath, 'utf8'));
    expect(latest.runId).toBe('second');
    expect(JSON.parse(await readFile(join(dir, 'out-latest', latest.manifest), 'utf8')).runId).toBe('second');
  });

  it('exports to S3 when given --bucket and a local endpoint, and with --quiet says only where the run went', async () => {
    const io = captureIo(dir, {
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
    });
    // The SDK reads credentials and region from the process environment; the command reads only its own config.
    const restoreEnv = setProcessEnv(io.env);
    try {
      const code = await runExportCommand(
        ['--report', 'report.json', '--credentials', 'credentials.json', '--bucket', 'reports', '--prefix', 'team-a', '--ledger-table', 'cli-ledger', '--run-id', 'cli-s3', '--quiet'],
        io,
      );
      expect(io.err()).toBe('');
      expect(code).toBe(0);
    } finally {
      restoreEnv();
    }
    expect(io.out()).toMatch(/^cli-test run cli-s3: s3:\/\/reports\/team-a\/cli-test\/dt=\d{4}-\d{2}-\d{2}\/run=cli-s3\/manifest\.json\n$/);
    const latest = await s3.client.send(new GetObjectCommand({ Bucket: 'reports', Key: 'team-a/cli-test/latest.json' }));
    expect(JSON.parse(await latest.Body!.transformToString()).runId).toBe('cli-s3');
  });

  it('keeps two prefixes that share one ledger table apart: the same report and run id complete in both', async () => {
    const env = {
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
    };
    const restoreEnv = setProcessEnv(env);
    try {
      for (const prefix of ['shared-x', 'shared-y']) {
        const io = captureIo(dir, env);
        const code = await runExportCommand(
          ['--report', 'report.json', '--credentials', 'credentials.json', '--bucket', 'reports', '--prefix', prefix, '--ledger-table', 'cli-ledger', '--run-id', 'same-run', '--quiet'],
          io,
        );
        expect({ prefix, code, err: io.err() }).toEqual({ prefix, code: 0, err: '' });
        expect(io.out()).toContain(`cli-test run same-run: s3://reports/${prefix}/cli-test/`);
      }
    } finally {
      restoreEnv();
    }
    for (const prefix of ['shared-x', 'shared-y']) {
      const latest = await s3.client.send(new GetObjectCommand({ Bucket: 'reports', Key: `${prefix}/cli-test/latest.json` }));
      const pointer = JSON.parse(await latest.Body!.transformToString()) as { runId: string; manifestKey?: string; manifest?: string };
      expect(pointer.runId).toBe('same-run');
      // The manifest it names is in its own prefix.
      const manifestKey = Object.values(pointer).find((v): v is string => typeof v === 'string' && v.endsWith('manifest.json'))!;
      const key = manifestKey.startsWith(`${prefix}/`) ? manifestKey : `${prefix}/${manifestKey}`;
      const manifest = await s3.client.send(new GetObjectCommand({ Bucket: 'reports', Key: key }));
      expect(JSON.parse(await manifest.Body!.transformToString()).runId).toBe('same-run');
    }
  });

  it('refuses --bucket without a ledger table and says why', async () => {
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--bucket', 'reports'], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/--bucket needs --ledger-table <DynamoDB table>.*keeps two attempts of one run from overwriting each other/);
  });

  it('exits 2 for missing or conflicting options with one line pointing to --help, never the whole usage', async () => {
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--out', 'x'], io)).toBe(2);
    expect(io.err()).toBe('error: give exactly one of --credentials or --secret-id (npm run export -- --help lists the options)\n');
    const io2 = captureIo(dir);
    expect(await runExportCommand(['--bogus'], io2)).toBe(2);
  });

  it('takes a report by the name cdk.json configures, as link does, and names both choices with the nearest when neither fits', async () => {
    const named = await mkdtemp(join(tmpdir(), 'export-named-'));
    try {
      await writeFile(join(named, 'credentials.json'), JSON.stringify(sim.credentials()));
      await writeFile(join(named, 'report.json'), JSON.stringify({ name: 'from-file', datasets: { risks: {} }, formats: ['csv'] }));
      const definition = { name: 'configured-weekly', datasets: { risks: {} }, formats: ['csv'] };
      await writeFile(join(named, 'cdk.json'), JSON.stringify({ app: 'x', context: { reportExporter: { reports: [{ definition }] } } }));
      const io = captureIo(named);
      expect(await runExportCommand(['--report', 'configured-weekly', '--credentials', 'credentials.json', '--out', 'out', '--dry-run'], io)).toBe(0);
      expect(io.out()).toContain('configured-weekly');

      const typo = captureIo(named);
      expect(await runExportCommand(['--report', 'reprot.json', '--credentials', 'credentials.json', '--out', 'out'], typo)).toBe(1);
      expect(typo.err()).toBe(
        `\nexport failed: "reprot.json" was not found: no file ${join(named, 'reprot.json')} and no report of that name in cdk.json (configured: configured-weekly) (did you mean "report.json"?); --report takes a report definition file (such as examples/demo-report.json) or the name of a report cdk.json configures\n`,
      );
      const name = captureIo(named);
      expect(await runExportCommand(['--report', 'configured-weekyl', '--credentials', 'credentials.json', '--out', 'out'], name)).toBe(1);
      expect(name.err()).toContain('(did you mean "configured-weekly"?)');
    } finally {
      await rm(named, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the bad fields of a definition, and publishes nothing', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ name: 'Bad Name', datasets: { piObjectives: { completionType: 7 } } }));
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'bad.json', '--credentials', 'credentials.json', '--out', 'bad-out'], io);
    expect(code).toBe(1);
    expect(io.err()).toContain('name: must be a slug');
    expect(io.err()).toContain('datasets.piObjectives.completionType');
    await expect(readdir(join(dir, 'bad-out'))).rejects.toThrow();
  });

  it('stops a definition with bad selectors in two datasets before anything is fetched or written, listing both', async () => {
    const misnamed = { name: 'misnamed', datasets: { risks: { registers: ['No such register'] }, okrs: {}, boardItems: { boards: ['1000', 'Payments ARTT'] } } };
    await writeFile(join(dir, 'misnamed.json'), JSON.stringify(misnamed));
    sim.clearRequests();
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'misnamed.json', '--credentials', 'credentials.json', '--out', 'misnamed-out'], io)).toBe(1);
    expect(io.err()).toContain('export failed: report "misnamed" cannot run as defined (2 problems); nothing was fetched or written:\n');
    expect(io.err()).toContain('\n  - datasets.risks.registers[0]: "No such register" is not a risk register this key can see');
    expect(io.err()).toContain('\n  - datasets.boardItems.boards[1]: "Payments ARTT" is not a board this key can see');
    expect(io.out()).not.toMatch(/dataset risks/);
    // The lists alone: no risks, OKR trees or board items were asked for before the plan failed.
    expect(dataRequests(sim.requests)).toEqual([]);
    // No run folder, no lease in the ledger (<out>/.ledger), nothing at all.
    await expect(readdir(join(dir, 'misnamed-out'))).rejects.toThrow(/ENOENT/);
  });

  it('stops at the plan when the company prefix is wrong, with one error naming it', async () => {
    await writeFile(join(dir, 'wrong-prefix.json'), JSON.stringify({ ...sim.credentials(), companyPrefix: 'acmee' }));
    sim.clearRequests();
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--credentials', 'wrong-prefix.json', '--out', 'prefix-out'], io)).toBe(1);
    expect(io.err()).toContain(
      'export failed: report "cli-test" cannot run as defined (one problem); nothing was fetched or written:\n' +
        '  - credentials.companyPrefix: the planning API does not accept the company prefix "acmee" of the credentials: the list of boards answered 404.',
    );
    expect(dataRequests(sim.requests)).toEqual([]);
    await expect(readdir(join(dir, 'prefix-out'))).rejects.toThrow(/ENOENT/);
  });

  it('exits 1 with advice when the API key is wrong, without echoing it', async () => {
    await writeFile(join(dir, 'wrong.json'), JSON.stringify({ ...sim.credentials(), apiKey: 'wrong-key-123' }));
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'wrong.json', '--out', 'wrong-out'], io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/e-mail and API key/i);
    expect(io.err()).not.toContain('wrong-key-123');
    // The client's operation name (listRiskRegisters: …) is for the log, not for the person reading.
    expect(io.err()).not.toMatch(/\b(list|get)[A-Z][A-Za-z]+: /);
  });

  it('names a missing credentials file', async () => {
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'nope.json', '--out', 'x'], io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/credentials file ".*nope.json" was not found/);
    expect(io.err()).not.toContain('no run was published');
    const missing = captureIo(dir);
    expect(await runExportCommand(['--report', 'missing-report.json', '--credentials', 'credentials.json', '--out', 'x'], missing)).toBe(1);
    expect(missing.err()).toMatch(/^\nexport failed: "missing-report\.json" was not found: no file \S*missing-report\.json and no report of that name in cdk\.json \(configured: none\); --report takes a report definition file/);
  });

  it.runIf(process.platform === 'linux')('ends with a clear error for an --out where no folder can be made (/proc/self), instead of hanging', async () => {
    const io = captureIo(dir);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--out', '/proc/self'], io);
    expect(code).toBe(1);
    expect(io.err()).toContain('cannot create folders in /proc/self');
  });
});
