import { systemClock } from '../../shared/core/clock';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import { runOf } from '../support/run-builder';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { captureIo } from '../support/cli-io';

/**
 * Input hygiene: JSON files with a byte-order mark, and file-system errors that once
 * said "Writing the Excel workbook failed" without a path or a reason.
 */

const BOM = '\uFEFF';

describe('input hygiene', () => {
  let sim: RunningSimulator;
  let dir: string;

  async function run(argv: string[]): Promise<{ code: number; text: string }> {
    const io = captureIo(dir);
    const code = await runExportCommand([...argv, '--quiet'], io);
    return { code, text: io.printed() };
  }

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    dir = await mkdtemp(join(tmpdir(), 'hygiene-'));
    const report = JSON.stringify({ name: 'bom-report', datasets: { risks: {} }, formats: ['csv', 'xlsx'] }, null, 2);
    await writeFile(join(dir, 'report.json'), report);
    await writeFile(join(dir, 'report-bom.json'), `${BOM}${report}`);
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    await writeFile(join(dir, 'credentials-bom.json'), `${BOM}${JSON.stringify(sim.credentials(), null, 2)}`);
    await writeFile(join(dir, 'credentials-broken.json'), `${BOM}{"email": `);
    await writeFile(join(dir, 'a-file'), 'not a directory');
    await mkdir(join(dir, 'a-directory.json'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a report definition and a credentials file that start with a UTF-8 BOM', async () => {
    const { code, text } = await run(['--report', 'report-bom.json', '--credentials', 'credentials-bom.json', '--out', 'out']);
    expect(text).not.toMatch(/Unexpected token/);
    expect(code).toBe(0);
    const latest = JSON.parse(await readFile(join(dir, 'out', 'bom-report', 'latest.json'), 'utf8')) as { report: string };
    expect(latest.report).toBe('bom-report');
  });

  it('--out pointing at a file names the path and says it is not a directory, before fetching anything', async () => {
    sim.clearRequests();
    const { code, text } = await run(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'a-file']);
    expect(code).toBe(1);
    expect(text).toContain(join(dir, 'a-file'));
    expect(text).toMatch(/not a directory/);
    expect(text).not.toMatch(/Writing the Excel workbook failed/);
    expect(sim.requests).toHaveLength(0);
  });

  it('--out below a file names the path and the system reason', async () => {
    const { code, text } = await run(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'a-file/sub']);
    expect(code).toBe(1);
    expect(text).toContain(join(dir, 'a-file', 'sub'));
    expect(text).toMatch(/ENOTDIR: not a directory/);
  });

  it('a storage root that turns out to be a file: the workbook error names the file and the reason', async () => {
    const definition = parseReportDefinition({ name: 'root-is-file', datasets: { risks: {} }, formats: ['xlsx'] });
    const error = await runOf(definition)
      .withStorage(new LocalDirectoryStorage(join(dir, 'a-file')))
      .withLedger(new LocalLedger(join(dir, 'ledger')))
      .against(sim)
      .at(systemClock)
      .export()
      .then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).not.toBe('Writing the Excel workbook failed');
    expect(error?.message).toContain(join(dir, 'a-file', 'root-is-file'));
    expect(error?.message).toMatch(/ENOTDIR: not a directory/);
  });

  it.each([
    [['--report', 'missing.json', '--credentials', 'credentials.json', '--out', 'o'], 'missing.json', /was not found/],
    [['--report', 'a-directory.json', '--credentials', 'credentials.json', '--out', 'o'], 'a-directory.json', /is a directory, not a regular file/],
    [['--report', 'report.json', '--credentials', 'nope.json', '--out', 'o'], 'nope.json', /was not found/],
    [['--report', 'report.json', '--credentials', 'credentials-broken.json', '--out', 'o'], 'credentials-broken.json', /is not JSON/],
    [['--report', 'report.json', '--credentials', 'a-directory.json', '--out', 'o'], 'a-directory.json', /is a directory, not a regular file/],
  ])('%j names the path and the reason', async (argv, path, reason) => {
    const { code, text } = await run(argv);
    expect(code).toBe(1);
    expect(text).toContain(join(dir, path));
    expect(text).toMatch(reason);
  });
});
