import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimulator } from '../simulator/index';
import { runExportCommand, type CommandIo } from './export-command';

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
  const { values } = parseArgs({
    args: [...argv],
    options: {
      out: { type: 'string', default: 'out' },
      tenant: { type: 'string', default: 'demo' },
      report: { type: 'string', default: join(import.meta.dirname, '..', 'examples', 'demo-report.json') },
      // Which field names the demo server speaks: the contract's (default) or the public documentation's.
      vocabulary: { type: 'string' },
    },
  });
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
    return await runExportCommand(
      ['--report', values.report, '--credentials', credentialsPath, '--out', values.out],
      io,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await simulator.close();
  }
}
