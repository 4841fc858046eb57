// @tier slow
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobStatusStore } from '../../../shared/job/status/job-status';
import { LedgerRunLinkLedger } from '../../../shared/http/run-link-ledger';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { createRunLinkToken } from '../../../shared/links/run-link-token';
import { launchBrowser } from '../../support/browser';
import { startHttpApi, type LocalHttpApi } from '../../support/http-api';
import { LINK_KEYS, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';

/**
 * What a run link does when it is fetched the way the world fetches links: by mail scanners (GET,
 * HEAD, a headless browser without script), by 50 tabs at once, with a broken percent escape. The
 * full local stack (the same one `npm run local` serves), over real HTTP.
 */
const report = (name: string) => ({ name, title: `Report ${name}`, datasets: { risks: {} }, formats: ['csv'] });
const DAY = 86_400_000;
const HOUR = 3_600_000;
/**
 * The stack's clock, stopped: the handlers, the ledger and s3rver all run in this process, so
 * faking Date alone stops it for all of them (timers stay real), and the hour a start is counted in
 * cannot change under the test. (The test kit's s3rver sends no Date header, whose real time the
 * SDK would otherwise take for clock skew: test/support/s3rver.ts.)
 */
const NOW = new Date('2026-11-23T06:30:00Z');

describe('run links fetched by scanners and storms', () => {
  let h: LambdaHarness;
  let api: LocalHttpApi;
  let browser: Browser;
  let ledger: DynamoDbLedger;
  let jobs: JobStatusStore;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    h = await startLambdaHarness({ scanned: report('scanned'), stormed: report('stormed') });
    api = await startHttpApi(h.apiHandler);
    browser = await launchBrowser();
    ledger = new DynamoDbLedger({ client: h.dynamo.client, tableName: h.dynamo.tableName });
    jobs = new JobStatusStore(ledger);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await h?.close();
    vi.useRealTimers();
  });

  const link = (name: string) => createRunLinkToken({ report: name, expiresAt: new Date(NOW.getTime() + 30 * DAY) }, LINK_KEYS.current, NOW);
  const launchesOf = (name: string) => h.lambda.invocations.filter((i) => (i.payload as { report?: string }).report === name).length;
  /** Starts counted against a link in the hour of NOW. */
  async function startsCounted(linkId: string): Promise<number> {
    const window = Math.floor(NOW.getTime() / HOUR);
    return ((await ledger.get(ledgerKey('run-link', 'starts', linkId, String(window))))?.value as { count?: number } | undefined)?.count ?? 0;
  }
  const pageTokenOf = (html: string) => /name="page" value="([^"]+)"/.exec(html)?.[1];
  const post = (token: string, body: string) =>
    fetch(`${api.baseUrl}/run/${token}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

  it('starts nothing when the e-mailed link is fetched as a scanner would: GET, HEAD, a browser without script, a bare POST', async () => {
    const { token, id } = link('scanned');
    const get = await fetch(`${api.baseUrl}/run/${token}`);
    expect(get.status).toBe(200);
    const html = await get.text();
    expect(html).toContain('data-state="ready"');
    expect(pageTokenOf(html)).toBeDefined();
    expect((await fetch(`${api.baseUrl}/run/${token}`, { method: 'HEAD' })).status).toBe(200);

    for (const javaScriptEnabled of [false, true]) {
      const context = await browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      await page.goto(`${api.baseUrl}/run/${token}`, { waitUntil: 'load' });
      expect(await page.locator('#run').getAttribute('data-state')).toBe('ready');
      await context.close();
    }
    // A POST without the page's token (a scanner that submits forms blindly, another site's form).
    for (const body of ['', 'page=', 'page=1.k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const answer = await post(token, body);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('data-state="ready"');
    }
    expect(launchesOf('scanned')).toBe(0);
    expect(await startsCounted(id)).toBe(0);
    expect(await new LedgerRunLinkLedger(ledger).currentRun('scanned')).toBeUndefined();
  });

  it('starts one export and counts one start for 50 simultaneous presses of one link; every press is answered, none refused', async () => {
    const { token, id } = link('stormed');
    const pageToken = pageTokenOf(await (await fetch(`${api.baseUrl}/run/${token}`)).text())!;
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(token, `page=${encodeURIComponent(pageToken)}`)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 303));
    const locations = answers.map((a) => new URL(a.headers.get('location')!, `${api.baseUrl}/run/${token}`));
    const exportIds = new Set(locations.map((l) => l.searchParams.get('export')));
    expect(exportIds.size).toBe(1);
    const [exportId] = [...exportIds];
    expect(launchesOf('stormed')).toBe(1);
    expect(await startsCounted(id)).toBe(1);

    const pages = await Promise.all(locations.map(async (l) => ({ status: (await fetch(l)).status, html: await (await fetch(l)).text() })));
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.html).toMatch(/data-state="(running|done)"/);
    }

    // Pressing again once it has finished reuses it: no start is counted.
    await expect.poll(async () => (await jobs.get(exportId!))?.status, { timeout: 60_000 }).toBe('succeeded');
    const again = await Promise.all(Array.from({ length: 5 }, () => post(token, `page=${encodeURIComponent(pageToken)}`)));
    for (const answer of again) expect(new URL(answer.headers.get('location')!, api.baseUrl).searchParams.get('export')).toBe(exportId);
    expect(launchesOf('stormed')).toBe(1);
    expect(await startsCounted(id)).toBe(1);
  });

  it('answers a malformed percent escape with 400 and goes on serving', async () => {
    const { token } = link('scanned');
    for (const path of ['/run/%E0%A4%A', '/run/%E0%A4%A/status', '/links/%E0%A4%A', '/run/%ZZ']) {
      expect((await fetch(`${api.baseUrl}${path}`)).status, path).toBe(400);
    }
    // A token that decodes but is no token (a lone surrogate cannot even be re-encoded): 400 from the handler.
    for (const bad of ['%ED%A0%80', 'a%20b', '%3Cscript%3E']) {
      expect((await fetch(`${api.baseUrl}/run/${bad}`)).status, bad).toBe(400);
    }
    expect((await fetch(`${api.baseUrl}/run/${token}`)).status).toBe(200);
  });
});
