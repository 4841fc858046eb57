import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildReportEmail } from '../shared/jobs/report-email';
import { parseReportDefinitionJson } from '../shared/report/definition';
import { exportReport } from '../shared/report/export-report';
import { LocalDirectoryStorage } from '../shared/storage/local-storage';
import { startSimulator } from '../simulator/index';
import { launchBrowser } from '../test/support/browser';
import { LocalLedger } from '../shared/ledger/local-ledger';

/**
 * The reference pictures in docs/images/ (shown in the README): the demo's e-mail as chromium draws
 * it, and the first printed page (the Summary) of the demo workbook as LibreOffice prints it. Also
 * prints the workbook's page count. Needs chromium, LibreOffice (soffice) and poppler-utils
 * (pdftoppm, pdfinfo). Run: `npx tsx scripts/report-pictures.ts`.
 *
 * A fixed day and seed, so the pictures change only when the report does.
 */
const TODAY = new Date('2026-11-23T06:00:00Z');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = join(ROOT, 'docs', 'images');

export async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'report-pictures-'));
  const sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
  const browser = await launchBrowser();
  try {
    const text = await readFile(join(ROOT, 'examples', 'demo-report.json'), 'utf8');
    const definition = { ...parseReportDefinitionJson(text), email: { to: ['rte@example.com'], attachWorkbook: false } };
    const storage = new LocalDirectoryStorage(join(work, 'out'));
    const result = await exportReport(definition, {
      credentials: { getCredentials: () => Promise.resolve(sim.credentials()) },
      storage,
      ledger: new LocalLedger(join(work, '.ledger')),
      runId: '20261123T060000Z-demo',
      now: () => TODAY,
    });
    await mkdir(IMAGES, { recursive: true });

    const email = await buildReportEmail(definition, result, {
      from: 'reports@example.com',
      linkBaseUrl: 'https://reports.example.com',
      key: { id: 'pictures', secret: 'p'.repeat(48) },
      now: TODAY,
      storage,
    });
    const page = await browser.newPage();
    await page.setViewportSize({ width: 720, height: 900 });
    await page.setContent(email.html);
    await page.screenshot({ path: join(IMAGES, 'demo-email.png'), fullPage: true });
    process.stdout.write(`subject: ${email.subject}\n`);

    const workbook = join(work, 'out', result.runFolder, `${definition.name}.xlsx`);
    const pdfDir = join(work, 'pdf');
    execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${join(work, 'lo-profile')}`, '--convert-to', 'pdf', '--outdir', pdfDir, workbook], { stdio: 'ignore' });
    const pdf = join(pdfDir, `${definition.name}.pdf`);
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
    process.stdout.write(`printed pages: ${/Pages:\s+(\d+)/.exec(info)?.[1] ?? '?'}\n`);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', pdf, join(work, 'summary')]);
    const png = (await readdir(work)).find((f) => f.startsWith('summary') && f.endsWith('.png'));
    if (!png) throw new Error('pdftoppm wrote no picture');
    await copyFile(join(work, png), join(IMAGES, 'demo-summary.png'));
    await copyFile(pdf, join(tmpdir(), 'demo-weekly.pdf'));
  } finally {
    await browser.close();
    await sim.close();
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
