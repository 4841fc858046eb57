import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Writes the PDF's fonts, shared/render/pdf/fonts/*.ttf: Liberation Sans 2 (regular and bold, SIL
 * Open Font License 1.1, Debian's fonts-liberation2; the notice is fonts/LICENSE.txt) with every glyph
 * but without its hinting (screen-pixel instructions a PDF viewer does not need: half the size).
 * pdfkit's standard fonts are loaded at run time from pdfkit's own folder, which a bundled Lambda does
 * not have, and cover Windows-1252 only: no "−", no "ł". The export function's bundling copies the
 * folder beside its bundle (PDF_FONTS, infra/constructs/exporter-function.ts).
 * Run: `npx tsx scripts/pdf-fonts.ts` (needs fonts-liberation2 and python3-fonttools; PYTHON names
 * the interpreter that has fontTools, default python3).
 */
const SOURCE = '/usr/share/fonts/truetype/liberation2';
const TARGET = fileURLToPath(new URL('../shared/render/pdf/fonts/', import.meta.url));
const PYTHON = process.env.PYTHON ?? 'python3';

for (const file of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) {
  execFileSync(PYTHON, ['-m', 'fontTools.subset', join(SOURCE, file), '--unicodes=*', '--glyphs=*', '--no-hinting', '--layout-features=*',
    '--name-IDs=*', '--name-languages=*', '--notdef-outline', `--output-file=${join(TARGET, file)}`], { stdio: ['ignore', 'ignore', 'inherit'] });
}
