import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { runDemoCommand } from '../cli/demo-command';
import { finishedView, type RunView } from '../shared/http/run-link';
import { renderRunPage } from '../shared/http/run-page';
import { parseReportDefinitionJson } from '../shared/report/definition/definition';
import { latestPointerSchema, manifestSchema } from '../shared/report/manifest/manifest';
import { launchBrowser } from '../test/support/browser';
import { refuseArgumentsBut } from './script-arguments';

/**
 * The reference pictures in docs/images/ (shown in the README), all drawn from the four-week demo
 * (`npm run demo -- --weeks 4`, run here as it is, on a fixed day with fixed run ids), so they change
 * only when the report does and show exactly what the demo writes, which is what a deployed stack sends:
 * - demo-email.png and demo-email-phone.png: the last week's e-mail (its email.html) as Chromium
 *   draws it at 720 and 390 px; trends-email.png: its Trends section alone;
 * - demo-summary.png and trends-sheet.png: the workbook's Summary and Trends pages as LibreOffice
 *   prints them (also prints the page count of each sheet);
 * - pdf-summary.png and pdf-trends.png: the first page of the report's own PDF (<report>.pdf) and the
 *   first page of its Trends, as poppler draws them.
 * - run-link-done.png and run-link-done-phone.png, run-link-progress.png and run-link-progress-phone.png:
 *   the run link's finished page of that last run and its page while running, rendered by the run
 *   page's own code (run-link.ts, run-page.ts), as Chromium draws them at 1280 and 390 px;
 *   run-link-refused.png: the page of a link that does not work.
 * Needs chromium, LibreOffice (soffice) and poppler-utils. Run: `npm run pictures`.
 */
const TODAY = new Date('2026-11-23T06:00:00Z');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = join(ROOT, 'docs', 'images');

export async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'report-pictures-'));
  const browser = await launchBrowser();
  try {
    const out = join(work, 'out');
    const runFolder = await fourWeeks(out, work);
    await mkdir(IMAGES, { recursive: true });
    const html = await readFile(join(runFolder, 'email.html'), 'utf8');
    process.stdout.write(`e-mail HTML: ${Buffer.byteLength(html)} bytes\n`);
    await emailPictures(browser, html);
    await runLinkPictures(browser, runFolder);
    printedPictures(join(runFolder, 'demo-weekly.xlsx'), work);
    reportPdfPictures(join(runFolder, 'demo-weekly.pdf'));
  } finally {
    await browser.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** The four-week demo into `out`; answers the last run's folder. */
async function fourWeeks(out: string, work: string): Promise<string> {
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const io = { stdout: new PassThrough().resume(), stderr, env: process.env, cwd: work };
  const ids = { newRunId: (at: Date) => `${at.toISOString().slice(0, 10).replaceAll('-', '')}T060000Z-demo` };
  const code = await runDemoCommand(['--weeks', '4', '--out', out], io, { today: TODAY, ids });
  if (code !== 0) throw new Error(`the demo failed (${code}): ${errors}`);
  const latest = latestPointerSchema.parse(JSON.parse(await readFile(join(out, 'demo-weekly', 'latest.json'), 'utf8')));
  return join(out, latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
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

/** A laptop's and a phone's width, and the names' suffix for each. */
const SCREENS = [
  { width: 1280, height: 800, suffix: '' },
  { width: 390, height: 844, suffix: '-phone' },
] as const;

/**
 * The run link's pages as a reader sees them: the finished page of the demo's last run (its
 * manifest, the demo report's title, zone and locale), the page while that run is halfway, and a
 * refused link. Drawn from the page's HTML alone: the page's script finds no server here, so
 * nothing reloads or downloads while it is drawn.
 */
async function runLinkPictures(browser: Browser, runFolder: string): Promise<void> {
  const manifest = manifestSchema.parse(JSON.parse(await readFile(join(runFolder, 'manifest.json'), 'utf8')));
  // Read as a run reads it: the definition's own defaults for the title, zone and locale.
  const report = parseReportDefinitionJson(await readFile(join(ROOT, 'examples', 'demo-report.json'), 'utf8'), 'examples/demo-report.json');
  const run = { exportId: manifest.runId, title: report.title ?? report.name, timeZone: report.timeZone, locale: report.locale };
  const done = finishedView(manifest, { ...run, fresh: true, href: (path) => `run-link/download?file=${encodeURIComponent(path)}`, rules: report.alerts?.rules });
  const datasetsTotal = Object.keys(report.datasets).length;
  const rows = Object.values(manifest.summary.rows).reduce((a, b) => a + b, 0);
  // Halfway: half the datasets and about half the rows.
  const running: RunView = { state: 'running', ...run, progress: { datasetsDone: Math.floor(datasetsTotal / 2), datasetsTotal, rows: Math.round(rows / 2) } };
  for (const screen of SCREENS) {
    for (const [view, name] of [[done, 'run-link-done'], [running, 'run-link-progress']] as const) {
      await drawRunPage(browser, view, screen, `${name}${screen.suffix}.png`);
    }
  }
  await drawRunPage(browser, { state: 'refused' }, SCREENS[0], 'run-link-refused.png');
}

/**
 * One run page in a page of its own, so each picture shows it as first opened (its autofocus
 * included), down to the end of its content: a short page is not drawn with a screen of white below.
 */
async function drawRunPage(browser: Browser, view: RunView, screen: { width: number; height: number }, name: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: screen.width, height: screen.height } });
  await page.setContent(renderRunPage(view, 'run-link').body);
  const bottom = await page.evaluate<number>("document.getElementById('run').getBoundingClientRect().bottom + window.scrollY");
  await page.screenshot({ path: join(IMAGES, name), fullPage: true, clip: { x: 0, y: 0, width: screen.width, height: Math.ceil(bottom) + 32 } });
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

/** The first page of the report's PDF and the first page of its Trends. */
function reportPdfPictures(pdf: string): void {
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 0);
  const pageText = (n: number) => execFileSync('pdftotext', ['-f', String(n), '-l', String(n), '-layout', pdf, '-'], { encoding: 'utf8' });
  const trendsPage = Array.from({ length: pages }, (_, i) => i + 1).find((n) => pageText(n).includes('Trends over the last'));
  if (trendsPage === undefined) throw new Error('no page of the report PDF holds the Trends');
  process.stdout.write(`report PDF: ${pages} pages (Trends from page ${trendsPage})\n`);
  drawPage(pdf, 1, join(IMAGES, 'pdf-summary.png'));
  drawPage(pdf, trendsPage, join(IMAGES, 'pdf-trends.png'));
}

function drawPage(pdf: string, page: number, png: string): void {
  execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', '-f', String(page), '-l', String(page), pdf, png.replace(/\.png$/, '')]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  refuseArgumentsBut(
    process.argv.slice(2),
    'Usage: npm run pictures\n\nRedraws every picture in docs/images/ (shown in the README) from the four-week demo, on a fixed day\n' +
      'and seed: the e-mail (Chromium), the workbook printed (LibreOffice), the report PDF (poppler) and the run\n' +
      'link pages. Needs chromium, LibreOffice (soffice) and poppler-utils. Takes no arguments.\n',
  );
  await main();
}
