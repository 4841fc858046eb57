// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { esbuildOptions, UNUSED_ARCHIVER_PARTS } from '../../infra/constructs/exporter-function';
import { readWorkbook, sheetHeader } from '../support/read-output';

/**
 * The workbook is written inside the function: its writer, bundled as the Lambdas are (BUNDLING, with
 * archiver's file globbing and tar writer replaced by a stub), run in a fresh Node process from a
 * folder with no node_modules, writes an xlsx that exceljs reads back whole.
 */
describe('the workbook writer in a Lambda bundle', () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'xlsx-bundle-'));
    bundle = join(dir, 'index.mjs');
    await build({
      ...esbuildOptions(REPO_ROOT),
      stdin: {
        contents: `import { createWriteStream } from 'node:fs';
import { openXlsxWorkbook } from './shared/render/xlsx/workbook';
const workbook = openXlsxWorkbook(createWriteStream(process.argv[2]), { createdAt: new Date(0), timeZone: 'UTC', locale: 'en-GB', footer: 'Bundle – 2026-11-23' });
const sink = workbook.openSheet({ name: 'risks', title: 'Risks', columns: [
  { key: 'key', type: 'text', description: 'Key', label: 'Key' },
  { key: 'score', type: 'integer', description: 'Score', label: 'Score' },
] });
for (let i = 1; i <= 3; i++) await sink.writeRow({ values: ['R-' + i, i * 10] });
await sink.close();
await workbook.writeSummary({ title: 'Bundle weekly', sections: [] });
await workbook.close();`,
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      outfile: bundle,
      logLevel: 'error',
    });
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves out archiver\'s globbing and tar writer, and writes a workbook exceljs reads back', async () => {
    const code = await readFile(bundle, 'utf8');
    expect(code).toContain('archiver cannot glob files or write tar archives in this bundle');
    expect(UNUSED_ARCHIVER_PARTS).toEqual(['glob', 'readdir-glob', 'tar-stream']);
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await promisify(execFile)(process.execPath, [bundle, join(dir, 'out.xlsx')], { cwd: dir });
    const workbook = await readWorkbook(join(dir, 'out.xlsx'));
    const risks = workbook.getWorksheet('Risks')!;
    expect(sheetHeader(risks)).toEqual(['Key', 'Score']);
    expect([2, 3, 4].map((row) => [risks.getCell(row, 1).value, risks.getCell(row, 2).value])).toEqual([['R-1', 10], ['R-2', 20], ['R-3', 30]]);
  }, 60_000);
});
