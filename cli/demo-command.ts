import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimulator } from '../simulator/index';
import { writeDemoEmail } from './demo-email';
import { runExportCommand, type CommandIo } from './export-command';

const DEMO_USAGE = `Usage: npm run demo -- [options]

Runs the exporter against a local planning API simulator (no account, no configuration) and
writes the workbook, the CSV files and the e-mail the run would send.

Options:
  --out <dir>        where the report folders go (default: out)
  --tenant <name>    demo (default), tiny or large
  --report <file>    report definition (default: examples/demo-report.json)
  --vocabulary <v>   field names the demo server speaks: contract (default) or docs
  -h, --help         this text
`;

/**
 * `npm run demo`: starts the planning API simulator with the demo tenant on loopback, and runs the
 * real export command against it with examples/demo-report.json, so the demo goes through exactly
 * the door a user takes. No AWS account and no configuration needed.
 */
export async function runDemoCommand(
  argv: readonly string[],
  io: CommandIo,
  options: { readonly today?: Date } = {},
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        out: { type: 'string', default: 'out' },
        tenant: { type: 'string', default: 'demo' },
        report: { type: 'string', default: join(import.meta.dirname, '..', 'examples', 'demo-report.json') },
        // Which field names the demo server speaks: the contract's (default) or the public documentation's.
        vocabulary: { type: 'string' },
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
  const tenant = values.tenant === 'large' || values.tenant === 'tiny' ? values.tenant : 'demo';
  // A demo reads like a real release train, with dates around today (the test flavour's traps stay in the tests).
  const simulator = await startSimulator({
    tenant,
    flavour: 'demo',
    ...(values.vocabulary !== undefined && { vocabulary: values.vocabulary }),
    ...(options.today && { today: options.today }),
  });
  const dir = await mkdtemp(join(tmpdir(), 'demo-credentials-'));
  try {
    const credentialsPath = join(dir, 'credentials.json');
    await writeFile(credentialsPath, JSON.stringify(simulator.credentials(), null, 2), { mode: 0o600 });
    const speaks = simulator.vocabulary === 'docs' ? ', with the field names of the public documentation' : '';
    io.stdout.write(`demo tenant "${tenant}" served at ${simulator.v1BaseUrl} (v1) and ${simulator.legacyBaseUrl} (legacy)${speaks}\n`);
    const code = await runExportCommand(
      ['--report', values.report, '--credentials', credentialsPath, '--out', values.out],
      io,
    );
    if (code !== 0) return code;
    const definition = JSON.parse(await readFile(values.report, 'utf8')) as { name: string; timeZone?: string };
    const written = await writeDemoEmail(resolve(io.cwd, values.out), definition.name, definition.timeZone ?? 'UTC');
    io.stdout.write(`the e-mail it would send: ${written.html} (open in a browser) and ${written.eml} (open in a mail client)\n`);
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await simulator.close();
  }
}
