import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { errorMessage, ReportDefinitionError } from '../shared/core/errors';
import { parseReportDefinitionJson } from '../shared/report/definition/definition';
import { readRegularFile } from '../shared/core/files/regular-file';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { startSimulator, type RunningSimulator } from '../simulator/index';
import { aWeekOfWork } from '../simulator/weekly-work';
import type { RunIds } from '../shared/report/run/context';
import { runExportCommand, type CommandIo } from './export-command';
import { localStackAddress, localStackEnvironment } from './local-link-keys';

/** The tenants the demo offers; any other name is refused rather than quietly run as the demo tenant. */
const DEMO_TENANTS = ['demo', 'tiny', 'large'] as const;

const DEMO_USAGE = `Usage: npm run demo -- [options]

Runs the exporter against a local planning API simulator (no account, no configuration) and
writes the workbook, the CSV files, and the e-mail and chat messages the run would send
(email.html, email.eml, slack.json, teams.json beside the workbook: byte for byte what a
deployed stack sends for the same run).

Options:
  --out <dir>        where the report folders go (default: out; with --weeks: out/<n>-weeks)
  --weeks <n>        build n weekly runs (1 to 12, default 1) of a tenant that changes a little
                     each week, the last one today, so the report shows changes and trends
  --tenant <name>    demo (default), tiny or large
  --report <file>    report definition (default: examples/demo-report.json)
  --vocabulary <v>   field names the demo server speaks: contract (default) or docs
  --local            write the runs into the local stack (npm run local, running) instead of
                     <out>, so the e-mail's and chat messages' links open there; the messages
                     still go to <out>
  -h, --help         this text

The messages' links are signed for the local stack: they open while npm run local runs and
the run was written there (--local).
`;

/**
 * `npm run demo`: starts the planning API simulator with the demo tenant on loopback, and runs the
 * real export command against it with examples/demo-report.json and an outbox, so the demo goes
 * through exactly the job a deployed stack runs (resolve, export, deliver, announce); only the
 * messages land in files instead of SES and the webhooks. No AWS account and no configuration needed.
 */
export async function runDemoCommand(
  argv: readonly string[],
  io: CommandIo,
  /**
   * The demo's today and run ids, and a simulator the caller runs (and closes): tests fix them to
   * compare the demo with the Lambda byte for byte.
   */
  options: { readonly today?: Date; readonly ids?: RunIds; readonly simulator?: RunningSimulator } = {},
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        out: { type: 'string' },
        weeks: { type: 'string', default: '1' },
        tenant: { type: 'string', default: 'demo' },
        report: { type: 'string', default: join(import.meta.dirname, '..', 'examples', 'demo-report.json') },
        // Which field names the demo server speaks: the contract's (default) or the public documentation's.
        vocabulary: { type: 'string' },
        local: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    // parseArgs names the unknown or malformed option: say that and how to ask for help, no stack trace.
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\nRun "npm run demo -- --help" for the options.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(DEMO_USAGE);
    return 0;
  }
  if (values.vocabulary !== undefined && values.vocabulary !== 'contract' && values.vocabulary !== 'docs') {
    io.stderr.write('error: --vocabulary must be contract or docs\n');
    return 2;
  }
  if (!/^([1-9]|1[0-2])$/.test(values.weeks)) {
    io.stderr.write('error: --weeks must be a whole number from 1 to 12\n');
    return 2;
  }
  const tenant = DEMO_TENANTS.find((name) => name === values.tenant);
  if (tenant === undefined) {
    io.stderr.write(`error: --tenant must be ${DEMO_TENANTS.join(', ')} (not "${values.tenant}")\n`);
    return 2;
  }
  const weeks = Number(values.weeks);
  const out = values.out ?? (weeks > 1 ? join('out', `${weeks}-weeks`) : 'out');
  let definition: { name: string };
  try {
    definition = parseReportDefinitionJson(
      await readRegularFile(values.report, { label: `report definition "${values.report}"`, error: (message) => new ReportDefinitionError(message, []) }),
      `report definition "${values.report}"`,
    );
  } catch (error) {
    // A FIFO, a folder, a missing or broken file: one line saying which and why, not a stack trace.
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
  if (values.local) {
    const missing = await localStackMissing(localStackAddress(io.env).apiUrl);
    if (missing) {
      io.stderr.write(`error: --local writes into the local stack, and none answers at ${missing}: start it with npm run local (in another terminal), then run npm run demo -- --local again.\n`);
      return 1;
    }
  }
  if (weeks > 1 && !values.local && (await exists(resolve(io.cwd, out, definition.name)))) {
    io.stderr.write(
      `error: ${join(out, definition.name)} already holds runs; a --weeks demo builds its history from its first week. Delete that folder or give another --out.\n`,
    );
    return 2;
  }
  const today = options.today ?? new Date();
  // A demo reads like a real release train, with dates around today (the test flavour's traps stay in the tests).
  const simulator = options.simulator ?? (await startSimulator({
    tenant,
    flavour: 'demo',
    today,
    ...(values.vocabulary !== undefined && { vocabulary: values.vocabulary }),
  }));
  const dir = await mkdtemp(join(tmpdir(), 'demo-credentials-'));
  try {
    const credentialsPath = join(dir, 'credentials.json');
    await writeFile(credentialsPath, JSON.stringify(simulator.credentials(), null, 2), { mode: 0o600 });
    const speaks = simulator.vocabulary === 'docs' ? ', with the field names of the public documentation' : '';
    io.stdout.write(`demo tenant "${tenant}" served at ${simulator.v1BaseUrl} (v1) and ${simulator.legacyBaseUrl} (legacy)${speaks}\n`);
    const exportArgs = ['--report', values.report, '--credentials', credentialsPath, ...(values.local ? localStackArgs(io) : ['--out', out]), '--outbox', out];
    const code = await inLocalStack(values.local, io, (runIo) => runWeeks(simulator, weeks, today, exportArgs, runIo, options.ids));
    if (code !== 0) return code;
    for (const note of await writeLinkNotes(resolve(io.cwd, out, definition.name), values.local)) io.stdout.write(`  note     ${note}\n`);
    if (!values.local) io.stdout.write('  the links open against the local stack: start npm run local, then npm run demo -- --local\n');
    return code;
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (!options.simulator) await simulator.close();
  }
}

const WEEK_MS = 7 * 24 * 3_600_000;

/** Where the local stack's functions read runs: its bucket, prefix and ledger table (`--bucket` of the export command). */
function localStackArgs(io: CommandIo): string[] {
  const address = localStackAddress(io.env);
  return ['--bucket', address.reportsBucket, '--prefix', address.reportsPrefix, '--ledger-table', address.ledgerTable];
}

/**
 * With --local, runs `run` with the local stack's S3 and DynamoDB endpoints and s3rver's key pair in
 * the environment the SDK clients read (as `AWS_ENDPOINT_URL_S3=… npm run export -- --bucket …`
 * would), and puts the process's own back afterwards.
 */
async function inLocalStack(local: boolean, io: CommandIo, run: (io: CommandIo) => Promise<number>): Promise<number> {
  if (!local) return run(io);
  const env = localStackEnvironment(localStackAddress(io.env));
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await run({ ...io, env: { ...io.env, ...env } });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/**
 * The weekly runs of the demo, oldest first, each at its own date, the last one `today`; between two
 * runs the tenant moves by a week of ordinary work (simulator/weekly-work.ts). Only the last run
 * prints the export's full account; the others print a line each.
 */
async function runWeeks(
  simulator: RunningSimulator,
  weeks: number,
  today: Date,
  exportArgs: readonly string[],
  io: CommandIo,
  ids: RunIds | undefined,
): Promise<number> {
  for (let week = 0; week < weeks; week++) {
    const date = new Date(today.getTime() - (weeks - 1 - week) * WEEK_MS);
    if (week > 0) simulator.advance(aWeekOfWork(simulator.tenant, week, date));
    const last = week === weeks - 1;
    const title = `week ${week + 1} of ${weeks}, ${date.toISOString().slice(0, 10)}`;
    if (weeks > 1 && last) io.stdout.write(`${title}\n`);
    // Earlier weeks' full accounts would bury the one that matters; their errors still show.
    const weekIo = last ? io : { ...io, stdout: new PassThrough().resume() };
    const code = await runExportCommand(last ? exportArgs : [...exportArgs, '--quiet'], weekIo, { clock: () => date, ...(ids && { ids }) });
    if (code !== 0) return code;
    if (!last) io.stdout.write(`${title}: exported\n`);
  }
  return 0;
}

const LINKS_NOTE = (local: boolean) =>
  [
    'Where the links of these messages open',
    '',
    'email.html, email.eml, slack.json and teams.json are byte for byte what a deployed stack sends, so',
    'their links ("Open the workbook", the files, the run link) are signed for a stack: the local one.',
    local
      ? 'This run was written into the local stack (npm run demo -- --local): they open while npm run local runs.'
      : 'This run was written into a folder, so they open nothing yet (or an S3 error page, NoSuchKey). To click\n' +
        'them, start the local stack in another terminal and write the run there:\n\n  npm run local\n  npm run demo -- --local',
    '',
  ].join('\n');

/**
 * The demo's note beside each run's messages (`links.txt`, in every outbox run folder of the report
 * that has an email.html and no note yet): the messages themselves must stay what a stack sends.
 */
async function writeLinkNotes(reportDir: string, local: boolean): Promise<string[]> {
  const entries = await readdir(reportDir, { recursive: true, withFileTypes: true }).catch(() => []);
  const folders = entries.filter((e) => e.isFile() && e.name === 'email.html').map((e) => e.parentPath);
  const written: string[] = [];
  for (const folder of folders) {
    const path = join(folder, 'links.txt');
    if (await exists(path)) continue;
    await writeFile(path, LINKS_NOTE(local));
    written.push(path);
  }
  return written;
}

/**
 * The local stack's address when nothing answers there (refused, or no answer within 5 s); undefined
 * when it answers anything. Asked before any run, so the demo does not fail deep in an S3 write.
 */
async function localStackMissing(apiUrl: string): Promise<string | undefined> {
  try {
    const answer = await fetch(apiUrl, { signal: AbortSignal.timeout(5_000) });
    await answer.body?.cancel();
    return undefined;
  } catch {
    return apiUrl;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
