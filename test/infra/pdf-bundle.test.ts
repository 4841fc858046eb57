// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { copyBesideBundle, esbuildOptions, PDF_FONTS } from '../../infra/constructs/exporter-function';
import { pdfPages } from '../support/read-pdf';

/**
 * The PDF is rendered inside the function: its renderer, bundled as the Lambdas are (BUNDLING: ESM,
 * the banner, the WOFF2 alias), with the fonts folder beside the bundle as the export function's
 * bundling copies it (PDF_FONTS), and run in a fresh Node process from a folder with no
 * node_modules, writes a PDF with its fonts. pdfkit's own Helvetica would fail here (it is read from
 * pdfkit's folder).
 */
describe('the PDF renderer in a Lambda bundle', () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-bundle-'));
    bundle = join(dir, 'index.mjs');
    await build({
      ...esbuildOptions(REPO_ROOT),
      stdin: {
        contents: `import { renderReportPdf } from './shared/render/pdf/document';
import { readerFormat } from './shared/core/format';
import { writeFileSync } from 'node:fs';
const bytes = await renderReportPdf({ title: 'Łódź', header: 'Łódź – 2026-11-23', format: readerFormat('en-GB', 'UTC'), creator: 't', createdAt: new Date(0), chartSheets: [],
  summary: { title: 'Łódź weekly', sections: [{ heading: 'Risks', lines: [{ label: 'Open risks', value: 2148, type: 'integer', delta: '−3 since 16 Nov' }] }] } });
writeFileSync(process.argv[2], bytes);`,
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      outfile: bundle,
      logLevel: 'error',
    });
    copyBesideBundle(REPO_ROOT, dir, [PDF_FONTS]);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves out the WOFF2 decoder and the fonts, and renders a PDF with its embedded fonts', async () => {
    const code = await readFile(bundle, 'utf8');
    expect(code).toContain('WOFF2 fonts cannot be read in this bundle');
    expect(code.length).toBeLessThan(1_000_000);
    // The fonts are files beside the bundle, not base64 text in it (they were 1,930 string literals, 0.34 MB;
    // fontkit's and linebreak's Unicode tables are the few that remain).
    const base64Literals = code.match(/(['"`])[A-Za-z0-9+/=]{100,}\1/g) ?? [];
    expect(base64Literals.join('').length).toBeLessThan(50_000);
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await promisify(execFile)(process.execPath, [bundle, join(dir, 'out.pdf')], { cwd: dir });
    const [page] = await pdfPages(join(dir, 'out.pdf'));
    expect(page).toMatch(/Open risks +2,148 +−3 since 16 Nov/);
    expect(page).toContain('Łódź weekly');
  }, 60_000);
});
