/**
 * Time to failure of the export command against a planning API that never answers (a hung server
 * once took 5 attempts × 30 s to fail), with and without an overall deadline:
 *   npx tsx bench/hung-server.ts 5s     # --timeout 5s
 *   npx tsx bench/hung-server.ts        # no --timeout: 5 attempts × 30 s per request
 * Prints one JSON line: the exit code, the seconds it took, the requests the server saw and the message.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runExportCommand } from '../cli/export-command';
import { startSimulator } from '../simulator/index';

async function main(): Promise<void> {
  const timeout = process.argv[2];
  const sim = await startSimulator({ tenant: 'tiny' });
  const dir = await mkdtemp(join(tmpdir(), 'hung-server-'));
  try {
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'hung', datasets: { risks: {} }, formats: ['csv'] }));
    sim.injectFault({ status: 'hang', times: 1000 });
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const started = performance.now();
    const code = await runExportCommand(
      ['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out', '--quiet', ...(timeout ? ['--timeout', timeout] : [])],
      { stdout: out, stderr: out, env: {}, cwd: dir },
    );
    const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
    process.stdout.write(`${JSON.stringify({ timeout: timeout ?? null, code, seconds, requests: sim.requests.length, message: text.trim() })}\n`);
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
