import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { buildReportEmail } from '../shared/jobs/report-email';
import { parseReportDefinitionJson, type ReportDefinition } from '../shared/report/definition';
import { exportReport } from '../shared/report/export-report';
import type { ExportResult } from '../shared/report/run-export';
import { LocalDirectoryStorage } from '../shared/storage/local-storage';
import { startSimulator } from '../simulator/index';
import { aWeekOfWork } from '../simulator/weekly-work';
import { launchBrowser } from '../test/support/browser';
import { LocalLedger } from '../shared/ledger/local-ledger';

/**
 * The reference pictures in docs/images/ (shown in the README), all drawn from the four-week demo
 * (`npm run demo -- --weeks 4`) on a fixed day and seed, so they change only when the report does:
 * - demo-email.png and demo-email-phone.png: the last week's e-mail as Chromium draws it at 720 and
 *   390 px; trends-email.png: its Trends section alone;
 * - demo-summary.png and trends-sheet.png: the workbook's Summary and Trends pages as LibreOffice
 *   prints them (also prints the page count of each sheet).
 * Needs chromium, LibreOffice (soffice) and poppler-utils. Run: `npm run pictures`.
 * The run-link pages (run-link-*.png) are drawn by their browser test, not here.
 */
const TODAY = new Date('2026-11-23T06:00:00Z');
const WEEKS = 4;
const WEEK_MS = 7 * 24 * 3_600_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = join(ROOT, 'docs', 'images');

export async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'report-pictures-'));
  const browser = await launchBrowser();
  try {
    const text = readFileSync(join(ROOT, 'examples', 'demo-report.json'), 'utf8');
    const definition = { ...parseReportDefinitionJson(text), email: { to: ['rte@example.com'], attachWorkbook: false } };
    const storage = new LocalDirectoryStorage(join(work, 'out'));
    const result = await fourWeeks(definition, storage, work);
    await mkdir(IMAGES, { recursive: true });
    const email = await buildReportEmail(definition, result, {
      from: 'reports@example.com',
      linkBaseUrl: 'https://reports.example.com',
      key: { id: 'pictures', secret: 'p'.repeat(48) },
      now: TODAY,
      storage,
    });
    process.stdout.write(`subject: ${email.subject}\ne-mail HTML: ${Buffer.byteLength(email.html)} bytes\n`);
    await emailPictures(browser, email.html);
    printedPictures(join(work, 'out', result.runFolder, `${definition.name}.xlsx`), work);
  } finally {
    await browser.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** Four weekly runs, the last on TODAY, with a week of ordinary work between two runs. */
async function fourWeeks(definition: ReportDefinition, storage: LocalDirectoryStorage, work: string): Promise<ExportResult> {
  const sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
  try {
    let result: ExportResult | undefined;
    for (let week = 0; week < WEEKS; week++) {
      const date = new Date(TODAY.getTime() - (WEEKS - 1 - week) * WEEK_MS);
      if (week > 0) sim.advance(aWeekOfWork(sim.tenant, week, date));
      result = await exportReport(definition, {
        credentials: { getCredentials: () => Promise.resolve(sim.credentials()) },
        storage,
        ledger: new LocalLedger(join(work, '.ledger')),
        runId: `${date.toISOString().slice(0, 10).replaceAll('-', '')}T060000Z-demo`,
        trigger: 'scheduled',
        now: () => date,
      });
    }
    return result!;
  } finally {
    await sim.close();
  }
}

async function emailPictures(browser: Browser, html: string): Promise<void> {
  const page = await browser.newPage();
  for (const [width, name] of [[720, 'demo-email.png'], [390, 'demo-email-phone.png']] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.setContent(html);
    await page.screenshot({ path: join(IMAGES, name), fullPage: true });
  }
  await page.setViewportSize({ width: 720, height: 900 });
  await page.setContent(html);
  // The Trends section: from its heading to the heading after it (or the end of the message).
  const box = await page.evaluate<{ top: number; bottom: number } | null>(`(() => {
    const headings = [...document.querySelectorAll('h2')];
    const i = headings.findIndex((h) => h.textContent === 'Trends');
    if (i < 0) return null;
    const top = headings[i].getBoundingClientRect().top + window.scrollY;
    const next = headings[i + 1];
    const bottom = next ? next.getBoundingClientRect().top + window.scrollY : document.body.scrollHeight;
    return { top, bottom };
  })()`);
  if (!box) throw new Error('the e-mail has no Trends section: the four weeks did not reach it');
  await page.screenshot({ path: join(IMAGES, 'trends-email.png'), fullPage: true, clip: { x: 0, y: box.top - 8, width: 720, height: box.bottom - box.top } });
  await page.close();
}

/** The Summary's first page and the Trends sheet's first page, as LibreOffice prints the workbook. */
function printedPictures(workbook: string, work: string): void {
  const pdfDir = join(work, 'pdf');
  execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${join(work, 'lo-profile')}`, '--convert-to', 'pdf', '--outdir', pdfDir, workbook], { stdio: 'ignore' });
  const pdf = join(pdfDir, workbook.slice(workbook.lastIndexOf('/') + 1).replace(/\.xlsx$/, '.pdf'));
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 0);
  const pageText = (n: number) => execFileSync('pdftotext', ['-f', String(n), '-l', String(n), '-layout', pdf, '-'], { encoding: 'utf8' });
  const trendsPage = Array.from({ length: pages }, (_, i) => i + 1).find((n) => pageText(n).includes('Trends over the last'));
  if (trendsPage === undefined) throw new Error('no printed page holds the Trends sheet');
  process.stdout.write(`printed pages: ${pages} (Summary from page 1, Trends on page ${trendsPage})\n`);
  drawPage(pdf, 1, join(IMAGES, 'demo-summary.png'));
  drawPage(pdf, trendsPage, join(IMAGES, 'trends-sheet.png'));
}

function drawPage(pdf: string, page: number, png: string): void {
  execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', '-f', String(page), '-l', String(page), pdf, png.replace(/\.png$/, '')]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
