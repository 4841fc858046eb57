// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { esbuildOptions, UNUSED_ARCHIVER_PARTS, XML_READER } from '../../infra/constructs/exporter-function';
import { readWorkbook, sheetHeader } from '../support/read-output';

const run = promisify(execFile);
const ROWS = 20_000;

/**
 * The workbook is written inside the function: its writer, bundled as the Lambdas are (BUNDLING, with
 * archiver's file reading, globbing and tar writer and exceljs's XML reader replaced by stubs, and one
 * readable-stream for the whole zip writer), run in a fresh Node process from a folder with no
 * node_modules, writes the same bytes as the writer run from source (tsx, node_modules as installed):
 * two sheets of 20,000 rows with links, enough that the zip stream pushes back on the writer.
 */
describe('the workbook writer in a Lambda bundle', () => {
  let dir: string;
  let script: string;
  let bundle: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'xlsx-bundle-'));
    script = join(dir, 'write.ts');
    bundle = join(dir, 'index.mjs');
    await writeFile(
      script,
      `import { createWriteStream } from 'node:fs';
import { openXlsxWorkbook } from ${JSON.stringify(join(REPO_ROOT, 'shared/render/xlsx/workbook'))};
const workbook = openXlsxWorkbook(createWriteStream(process.argv[2]), { createdAt: new Date(0), timeZone: 'UTC', locale: 'en-GB', footer: 'Bundle – 2026-11-23' });
for (const name of ['risks', 'items']) {
  const sink = workbook.openSheet({ name, title: name === 'risks' ? 'Risks' : 'Items', columns: [
    { key: 'key', type: 'text', description: 'Key', label: 'Key' },
    { key: 'score', type: 'integer', description: 'Score', label: 'Score' },
    { key: 'link', type: 'link', description: 'Link', label: 'Link' },
  ] });
  for (let i = 1; i <= ${ROWS}; i++) await sink.writeRow({ values: ['R-' + i, i * 10, { text: 'R-' + i, url: 'https://planning.example/r/' + i }] });
  await sink.close();
}
await workbook.writeSummary({ title: 'Bundle weekly', sections: [] });
await workbook.close();`,
    );
    await build({ ...esbuildOptions(REPO_ROOT), entryPoints: [script], outdir: dir, logLevel: 'error' });
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves out archiver\'s file reading, globbing and tar writer and exceljs\'s XML reader', async () => {
    const code = await readFile(bundle, 'utf8');
    expect(code).toContain('archiver cannot read files from disk or write tar archives in this bundle');
    expect(code).toContain('exceljs cannot read XML in this bundle');
    expect(UNUSED_ARCHIVER_PARTS).toContain('lazystream');
    expect(XML_READER).toBe('saxes');
  });

  it('writes the bytes the writer writes from source, a workbook exceljs reads back whole', async () => {
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await run(process.execPath, [bundle, join(dir, 'bundled.xlsx')], { cwd: dir });
    await run(process.execPath, ['--import', 'tsx', script, join(dir, 'source.xlsx')], { cwd: REPO_ROOT });
    const [bundled, source] = await Promise.all([readFile(join(dir, 'bundled.xlsx')), readFile(join(dir, 'source.xlsx'))]);
    expect(bundled.length).toBeGreaterThan(100_000);
    expect(bundled.equals(source)).toBe(true);
    const workbook = await readWorkbook(join(dir, 'bundled.xlsx'));
    const risks = workbook.getWorksheet('Risks')!;
    expect(sheetHeader(risks)).toEqual(['Key', 'Score', 'Link']);
    expect([2, ROWS + 1].map((row) => [risks.getCell(row, 1).value, risks.getCell(row, 2).value])).toEqual([['R-1', 10], [`R-${ROWS}`, ROWS * 10]]);
    expect(workbook.getWorksheet('Items')!.rowCount).toBe(ROWS + 1);
  }, 120_000);
});
