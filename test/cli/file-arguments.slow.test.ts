// @tier slow
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../cli/demo-command';
import { runExportCommand } from '../../cli/export-command';
import { runReportsCommand } from '../../cli/reports-command';
import { captureIo } from '../support/cli-io';

/**
 * Before: a FIFO given as `--report` (export, dry run, `reports push`) blocked for ever in open() and
 * the process ignored SIGTERM and SIGINT (exit waited for the thread stuck in the open). Every file a
 * command reads is now opened without blocking and refused unless it is a regular file; and a command
 * that waits (here on a planning API that never answers) ends on SIGTERM and SIGINT.
 */
describe.skipIf(process.platform === 'win32')('files the commands read', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-arguments-'));
    execFileSync('mkfifo', [join(dir, 'report.fifo')]);
    await mkdir(join(dir, 'a-folder'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify({ email: 'a@example.test', apiKey: 'k', baseUrl: 'http://127.0.0.1:9', legacyBaseUrl: 'http://127.0.0.1:9', companyPrefix: 'acme' }));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const refusals: [string, (file: string) => Promise<{ code: number; printed: string }>][] = [
    ['export --report', (file) => run((io) => runExportCommand(['--report', file, '--credentials', 'credentials.json', '--out', 'out'], io))],
    ['export --dry-run --report', (file) => run((io) => runExportCommand(['--report', file, '--credentials', 'credentials.json', '--out', 'out', '--dry-run'], io))],
    ['reports push', (file) => run((io) => runReportsCommand(['push', file, '--dir', 'defs'], io))],
    ['demo --report', (file) => run((io) => runDemoCommand(['--report', join(dir, file), '--out', join(dir, 'demo-out')], io))],
  ];
  async function run(command: (io: ReturnType<typeof captureIo>) => Promise<number>): Promise<{ code: number; printed: string }> {
    const io = captureIo(dir);
    // A command that lets an error reach its door (cli/main.ts prints it) is read here the same way.
    const code = await command(io).catch((error: unknown) => {
      io.stderr.write(`error: ${(error as Error).message}\n`);
      return 1;
    });
    return { code, printed: io.printed() };
  }

  it.each(refusals)('%s: a FIFO and a directory are refused at once, by name', async (_name, command) => {
    for (const [file, kind] of [['report.fifo', 'a named pipe (FIFO)'], ['a-folder', 'a directory']] as const) {
      const { code, printed } = await command(file);
      expect(code, printed).not.toBe(0);
      expect(printed).toContain(`is ${kind}, not a regular file`);
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('an export waiting on an API that never answers ends on %s', async (signal) => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((socket) => void sockets.add(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}`;
    await writeFile(join(dir, 'silent.json'), JSON.stringify({ email: 'a@example.test', apiKey: 'k', baseUrl: url, legacyBaseUrl: url, companyPrefix: 'acme' }));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'waits', datasets: { risks: {} }, formats: ['csv'] }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/export.ts', '--report', join(dir, 'report.json'), '--credentials', join(dir, 'silent.json'), '--out', join(dir, 'out')], {
      stdio: 'ignore',
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      // The command waits once its first request is in (a command that ended before is a failure).
      const first = await Promise.race([once(silent, 'connection').then(() => 'waiting'), exited.then(([code]) => `ended with ${code}`)]);
      expect(first).toBe('waiting');
      child.kill(signal);
      const [code, ended] = await exited;
      expect({ code, ended }).toEqual(code === null ? { code: null, ended: signal } : { code: 128 + (signal === 'SIGTERM' ? 15 : 2), ended: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
