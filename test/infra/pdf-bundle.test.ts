// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { copyBesideBundle, esbuildOptions, PDF_FONTS, UNUSED_PDFKIT_PARTS } from '../../infra/constructs/exporter-function';
import { pdfPages } from '../support/read-pdf';

const run = promisify(execFile);

/**
 * The PDF is rendered inside the function: its renderer, bundled as the Lambdas are (BUNDLING: ESM,
 * the banner, the stubs for fontkit's WOFF2 decoder and pdfkit's cipher and PNG decoder), with the
 * fonts folder beside the bundle as the export function's bundling copies it (PDF_FONTS), and run in a
 * fresh Node process from a folder with no node_modules, writes a PDF with its fonts, the same bytes
 * as the renderer run from source. pdfkit's own Helvetica would fail here (it is read from pdfkit's folder).
 */
describe('the PDF renderer in a Lambda bundle', () => {
  let dir: string;
  let script: string;
  let bundle: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-bundle-'));
    script = join(dir, 'render.ts');
    bundle = join(dir, 'index.mjs');
    await writeFile(
      script,
      // Loaded as the PDF output loads it (shared/report/outputs/pdf.ts): a chunk of its own beside index.mjs.
      `const { renderReportPdf } = await import(${JSON.stringify(join(REPO_ROOT, 'shared/render/pdf/document'))});
import { readerFormat } from ${JSON.stringify(join(REPO_ROOT, 'shared/core/format'))};
import { writeFileSync } from 'node:fs';
const bytes = await renderReportPdf({ title: 'Łódź', header: 'Łódź – 2026-11-23', format: readerFormat('en-GB', 'UTC'), creator: 't', createdAt: new Date(0),
  chartSheets: [{ heading: 'Trends', sentence: 'Open risks by week.', blocks: [{ title: 'Open risks', categoryLabel: 'Run', columns: [{ label: 'Open', format: 'integer' }],
    rows: [{ category: '2026-11-16', values: [2151] }, { category: '2026-11-23', values: [2148] }], chart: { kind: 'line', series: [0] } }] }],
  summary: { title: 'Łódź weekly', sections: [{ heading: 'Risks', lines: [{ label: 'Open risks', value: 2148, type: 'integer', delta: '−3 since 16 Nov' }] }] } });
writeFileSync(process.argv[2], bytes);`,
    );
    await build({ ...esbuildOptions(REPO_ROOT), entryPoints: [script], outdir: dir, logLevel: 'error' });
    copyBesideBundle(REPO_ROOT, dir, [PDF_FONTS]);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves out the WOFF2 decoder, the cipher, the PNG decoder and the fonts, and renders the PDF the source renders', async () => {
    // The renderer is a chunk beside index.mjs, which a cold start does not parse.
    const chunks = (await readdir(dir)).filter((f) => f.endsWith('.mjs') && f !== 'index.mjs');
    expect(chunks.length).toBeGreaterThan(0);
    const code = (await Promise.all(chunks.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
    expect(await readFile(bundle, 'utf8')).not.toContain('WOFF2 fonts cannot be read in this bundle');
    expect(code).toContain('WOFF2 fonts cannot be read in this bundle');
    expect(code).toContain('PDFs cannot be encrypted in this bundle');
    expect(code).toContain('PNG images cannot be embedded in this bundle');
    expect(Object.keys(UNUSED_PDFKIT_PARTS)).toEqual(['@noble/ciphers/aes', 'png-js']);
    expect(code.length).toBeLessThan(1_000_000);
    // The fonts are files beside the bundle, not base64 text in it (they were 1,930 string literals, 0.34 MB;
    // fontkit's and linebreak's Unicode tables are the few that remain).
    const base64Literals = code.match(/(['"`])[A-Za-z0-9+/=]{100,}\1/g) ?? [];
    expect(base64Literals.join('').length).toBeLessThan(50_000);
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await run(process.execPath, [bundle, join(dir, 'bundled.pdf')], { cwd: dir });
    await run(process.execPath, ['--import', 'tsx', script, join(dir, 'source.pdf')], { cwd: REPO_ROOT });
    const [bundled, source] = await Promise.all([readFile(join(dir, 'bundled.pdf')), readFile(join(dir, 'source.pdf'))]);
    expect(bundled.equals(source)).toBe(true);
    const [page] = await pdfPages(join(dir, 'bundled.pdf'));
    expect(page).toMatch(/Open risks +2,148 +−3 since 16 Nov/);
    expect(page).toContain('Łódź weekly');
  }, 60_000);
});
