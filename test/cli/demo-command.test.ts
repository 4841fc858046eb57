import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../cli/demo-command';
import { captureIo } from '../support/cli-io';

describe('demo command (the README\'s first command)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-cmd-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the demo tenant, exports it through the export command and publishes latest.json', async () => {
    const io = captureIo(dir);
    const code = await runDemoCommand(['--out', join(dir, 'out')], io);
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(io.out()).toMatch(/demo tenant "demo" served at http:\/\/127\.0\.0\.1:\d+/);

    const latest = JSON.parse(await readFile(join(dir, 'out', 'demo-weekly', 'latest.json'), 'utf8'));
    expect(latest).toMatchObject({ report: 'demo-weekly' });
    const manifest = JSON.parse(await readFile(join(dir, 'out', latest.manifest), 'utf8'));
    const runFolder = join(dir, 'out', latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
    const stored = await readdir(runFolder);
    for (const file of manifest.files) expect(stored).toContain(file.path);
    // The rows the manifest announces are the rows of the CSV a user opens.
    const risks = manifest.files.find((f: { path: string }) => f.path === 'risks.csv');
    const rows = parse(await readFile(join(runFolder, 'risks.csv')), { bom: true, columns: true });
    expect(rows.length).toBe(risks.rows.risks);
    expect(rows.length).toBeGreaterThan(0);

    // The e-mail the run would send, beside its files, its path printed.
    expect(io.out()).toContain(join(runFolder, 'email.html'));
    const html = await readFile(join(runFolder, 'email.html'), 'utf8');
    expect(html).toContain('Needs attention');
    const mail = await simpleParser(await readFile(join(runFolder, 'email.eml')));
    expect(mail.subject).toMatch(/^demo-weekly – \d{4}-\d{2}-\d{2}$/);
    expect(mail.html).toBe(html);
    expect(mail.text).toContain('Open risks: ');
    expect(mail.text).toContain(`Risks (CSV, `);
  });

  it('explains its options on --help, and names an unknown option without a stack trace', async () => {
    const run = async (argv: string[]) => {
      const io = captureIo(dir);
      const code = await runDemoCommand(argv, io);
      return { code, out: io.out(), err: io.err() };
    };
    const help = await run(['--help']);
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toMatch(/^Usage: npm run demo -- \[options\]/);
    expect(help.out).toContain('--out <dir>');
    const wrong = await run(['--bogus']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toBe('Unknown option \'--bogus\'\nRun "npm run demo -- --help" for the options.\n');
  });
});
