// @tier slow
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobStatusStore } from '../../../shared/job/status/job-status';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { createRunLinkToken } from '../../../shared/links/run-link-token';
import { manifestSchema, type Manifest } from '../../../shared/report/manifest/manifest';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { REFRESH_SECONDS } from '../../../shared/http/run-page';
import { launchBrowser } from '../../support/browser';
import { startHttpApi, type LocalHttpApi } from '../../support/http-api';
import { LINK_KEYS, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';

/**
 * A run link opened in a real Chromium against the full local stack: simulator, s3rver, Secrets
 * Manager / Lambda / EventBridge stubs, both Lambda handlers, and the HTTP API in front. The
 * README's pictures of these pages are drawn by `npm run pictures` from the demo, not here.
 */
const REPORT = {
  name: 'on-demand',
  title: 'On-demand planning report',
  datasets: { risks: {}, okrs: {} },
  formats: ['xlsx', 'csv'],
};
const DAY = 86_400_000;
/** The page is one narrow column. */
const VIEWPORT = { width: 720, height: 340 };

/** Contrast ratio of an element's text colour against its own (or the page's) background. */
async function contrastOf(page: Page, selector: string): Promise<number> {
  // A string expression: the tests compile without the DOM library.
  const [fg, bg] = await page.evaluate<[string, string]>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    const style = getComputedStyle(el);
    const own = style.backgroundColor;
    return [style.color, own === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.body).backgroundColor : own];
  })()`);
  const luminance = (css: string) => {
    const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [l1, l2] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
  return (l1! + 0.05) / (l2! + 0.05);
}

describe('run link in a browser', () => {
  let h: LambdaHarness;
  let api: LocalHttpApi;
  let browser: Browser;
  let storage: S3Storage;
  let jobs: JobStatusStore;
  beforeAll(async () => {
    h = await startLambdaHarness({ 'on-demand': REPORT });
    api = await startHttpApi(h.apiHandler);
    browser = await launchBrowser();
    storage = new S3Storage({ client: h.s3.client, bucket: h.s3.bucket, prefix: 'reports' });
    jobs = new JobStatusStore(new DynamoDbLedger({ client: h.dynamo.client, tableName: h.dynamo.tableName }));
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await h?.close();
  });

  const link = (report = 'on-demand') => createRunLinkToken({ report, expiresAt: new Date(Date.now() + 30 * DAY) }, LINK_KEYS.current, new Date());
  const sha256 = async (download: Download) => createHash('sha256').update(await readFile((await download.path()))).digest('hex');
  const exportIdOn = async (page: Page) => new URL(String(await page.locator('#run').getAttribute('data-page')), 'http://x/').searchParams.get('export')!;
  async function manifestOf(exportId: string): Promise<Manifest> {
    const job = await jobs.get(exportId);
    const bytes = await storage.getObject(job!.manifestKey!);
    return manifestSchema.parse(JSON.parse(Buffer.from(bytes!).toString('utf8')));
  }

  it('opens on a button, starts an export on its click, shows it to the end, downloads the workbook, and reuses it on a second open', async () => {
    const { token } = link();
    const context = await browser.newContext({ acceptDownloads: true, viewport: VIEWPORT });
    const page = await context.newPage();
    // The page's timers run on a clock the test moves (below), not every REFRESH_SECONDS of real time.
    await page.clock.install();
    const response = await page.goto(`${api.baseUrl}/run/${token}`);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("form-action 'self'");
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-store');
    // Opening the link only shows the button: nothing starts until a person presses it.
    expect(await page.locator('#run').getAttribute('data-state')).toBe('ready');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('start');
    expect(h.lambda.invocations).toHaveLength(0);

    const autoDownload = page.waitForEvent('download');
    await Promise.all([page.waitForURL(/\?export=/), page.click('#start')]);
    // The export runs asynchronously: the answer to the click is the progress page.
    expect(await page.locator('#run').getAttribute('data-state')).toMatch(/^(running|done)$/);
    expect(h.lambda.invocations).toHaveLength(1);

    // The script polls the status JSON and loads the finished page, which starts the workbook download.
    // Each look moves the page's clock one poll on: the script polls as it would every REFRESH_SECONDS
    // (a move while the finished page loads has no page to move, and the next look reads that page).
    await expect
      .poll(async () => {
        await page.clock.runFor(REFRESH_SECONDS * 1000).catch(() => undefined);
        return page.locator('#run').getAttribute('data-state');
      }, { timeout: 60_000 })
      .toBe('done');
    const exportId = await exportIdOn(page);
    const manifest = await manifestOf(exportId);
    const workbook = manifest.files.find((f) => f.format === 'xlsx')!;
    const first = await autoDownload;
    // Saved under a name for people: the report's title and the day in the report's zone.
    expect(first.suggestedFilename()).toMatch(/^On-demand planning report – \d{4}-\d{2}-\d{2}\.xlsx$/);
    // The address is the run link again: a bookmark opens the link, never this export as if new.
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).pathname).toBe(`/run/${token}`);
    // The headline figures under the e-mail's headings: risks, ROAM, OKR progress.
    expect(await page.locator('h2').allTextContents()).toEqual(expect.arrayContaining(['Risks', 'Risks by status', 'OKR progress by strategic theme']));
    const figures = (await page.locator('dl.figures').allTextContents()).join(' ');
    for (const label of ['Open risks', 'Mitigated', 'OKR progress']) expect(figures).toContain(label);
    expect(await sha256(first)).toBe(workbook.sha256);

    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('workbook');
    // Text and buttons meet WCAG AA contrast (4.5:1), computed from the rendered colours.
    for (const selector of ['h1', 'p.muted', '#workbook', '#run li:nth-child(2) a']) {
      expect(await contrastOf(page, selector), selector).toBeGreaterThanOrEqual(4.5);
    }
    const [clicked] = await Promise.all([page.waitForEvent('download'), page.click('#workbook')]);
    expect(await sha256(clicked)).toBe(workbook.sha256);
    expect(await page.locator('#run li a').count()).toBe(manifest.files.length);

    // A second open within N minutes (another token of the same report) reuses the run.
    const again = await context.newPage();
    const againDownload = again.waitForEvent('download');
    await again.goto(`${api.baseUrl}/run/${link().token}`);
    expect(await again.locator('#run').getAttribute('data-state')).toBe('done');
    expect(await exportIdOn(again)).toBe(exportId);
    expect(await sha256(await againDownload)).toBe(workbook.sha256);
    expect(h.lambda.invocations).toHaveLength(1);
    await context.close();
  });

  it('refuses tampered and expired tokens with the refusal page', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const { token } = link();
    const [body, signature] = token.split('.') as [string, string];
    const tampered = `${Buffer.from(Buffer.from(body, 'base64url').toString('utf8').replace('on-demand', 'on-demanc')).toString('base64url')}.${signature}`;
    const past = new Date(Date.now() - 2 * DAY);
    const expired = createRunLinkToken({ report: 'on-demand', expiresAt: new Date(past.getTime() + 3_600_000) }, LINK_KEYS.current, past).token;
    for (const bad of [tampered, expired]) {
      const response = await page.goto(`${api.baseUrl}/run/${bad}`);
      expect(response!.status()).toBe(403);
      expect(await page.locator('h1').textContent()).toBe('This link does not work');
      expect(await page.locator('#run').getAttribute('data-state')).toBe('refused');
    }
    const status = await page.goto(`${api.baseUrl}/run/${tampered}/status?export=0123456789abcdef`);
    expect(status!.status()).toBe(403);
    await context.close();
  });

  it('shows progress from the job status, and works without script', async () => {
    // A job held mid-way (written as the export job writes it), so the page shows known figures.
    const at = new Date().toISOString();
    await jobs.put({
      id: 'export-held-midway', report: 'on-demand', status: 'running', createdAt: at, updatedAt: at,
      progress: { datasetsDone: 1, datasetsTotal: 2, rows: 1234 },
    });
    const { token } = link();
    const context = await browser.newContext({ javaScriptEnabled: false, acceptDownloads: true, viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/run/${token}?export=export-held-midway`);
    expect(await page.locator('#datasets').textContent()).toBe('1 of 2');
    expect(await page.locator('#rows').textContent()).toBe('1,234');
    expect(await page.locator('#bar').getAttribute('aria-label')).toBe('Export progress');

    // Without script the page reloads itself; when the job is done the reload starts the download.
    const exportId = (await jobs.get('export-held-midway'))!.id;
    const finished = h.lambda.invocations.map((i) => (i.payload as { exportId: string }).exportId)[0]!;
    const done = await jobs.get(finished);
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await jobs.update(exportId, { status: 'succeeded', manifestKey: done!.manifestKey!, progress: done!.progress! }, new Date());
    const manifest = await manifestOf(exportId);
    expect(await sha256(await download)).toBe(manifest.files.find((f) => f.format === 'xlsx')!.sha256);
    expect(await page.locator('#run').getAttribute('data-state')).toBe('done');
    await context.close();
  });
});
