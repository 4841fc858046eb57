// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import { buildReportEmail } from '../../../../shared/messages/report-email';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { launchBrowser } from '../../../support/browser';
import { readerFormat } from '../../../../shared/core/format';
import type { ReportDefinition } from '../../../../shared/report/definition/definition';

const WEEKS = 4;
let definition: ReportDefinition;
const dayOfWeek = (i: number) => new Date(Date.UTC(2026, 10, 2 + 7 * i, 6));

/** The four-week demo's last e-mail, opened in Chromium with images blocked: the trends must still read. */
describe('the e-mail trends of the four-week demo in a browser, images off', () => {
  let sim: RunningSimulator;
  let root: string;
  let browser: Browser;
  let email: OutgoingEmail;
  let page: Page;
  const opens: number[] = [];

  beforeAll(async () => {
    [sim, browser] = await Promise.all([startSimulator({ tenant: 'demo' }), launchBrowser()]);
    root = await mkdtemp(join(tmpdir(), 'trends-email-'));
    const storage = new LocalDirectoryStorage(root);
    definition = parseReportDefinition({
      name: 'rte-weekly', title: 'Demo company – weekly planning report',
      datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} }, email: { to: ['rte@example.test'] },
    });
    const results: ExportResult[] = [];
    for (let i = 0; i < WEEKS; i++) {
      if (i > 0) {
        const open = sim.tenant.allRisks.filter((r) => r.status.status === 'Open').slice(0, 2 * i);
        sim.advance({ date: dayOfWeek(i), risks: open.map((r) => ({ id: r.id, close: true })) });
      }
      opens.push(sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status)).length);
      results.push(
        await runOf(definition)
          .withStorage(storage)
          .withLedger(new LocalLedger(join(root, '.ledger')))
          .against(sim)
          .at(dayOfWeek(i))
          .withRunId(`week-${i + 1}`)
          .withTrigger('scheduled')
          .export(),
      );
    }
    email = await buildReportEmail(definition as typeof definition & { email: NonNullable<typeof definition.email> }, results[WEEKS - 1]!, {
      from: 'reports@example.test', linkBaseUrl: 'https://reports.example.test', key: { id: 'k1', secret: 'k'.repeat(48) }, now: dayOfWeek(WEEKS - 1), storage,
    });
    page = await browser.newPage();
    await page.route('**/*', (route) => (route.request().resourceType() === 'image' ? route.abort() : route.continue()));
    await page.setViewportSize({ width: 800, height: 1200 });
    await page.setContent(email.html);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('stays under Gmail\'s 102 KB clipping limit', () => {
    expect(Buffer.byteLength(email.html)).toBeLessThan(102 * 1024);
  });

  it('shows a bar per week for the open risks, with each week\'s number and date as text', async () => {
    const text = await page.locator('body').innerText();
    expect(text, text.slice(text.indexOf('Trends'), text.indexOf('Trends') + 300)).toContain('Trends over the last 4 runs.');
    // Dates in the report's locale and zone (the definition's defaults), as the reader reads the rest.
    const format = readerFormat(definition.locale, definition.timeZone);
    const weeks = Array.from({ length: WEEKS }, (_, i) => dayOfWeek(i));
    expect(text).toContain(`Open risks (${format.dateRange(weeks[0]!, weeks[WEEKS - 1]!)})`);
    // The number row and the date row under the bars, as a reader (or a screen reader) gets them.
    const rows = await page.evaluate<string[][]>(
      `(() => { const p = [...document.querySelectorAll('p')].find((e) => e.textContent.startsWith('Open risks (')); const t = p.nextElementSibling; return [...t.rows].map((r) => [...r.cells].map((c) => c.textContent)); })()`,
    );
    expect(rows[1]).toEqual(opens.map(String));
    expect(rows[2]).toEqual(weeks.map((d) => format.dayMonth(d)));
    const hidden = await page.evaluate<string | null>(
      `(() => { const p = [...document.querySelectorAll('p')].find((e) => e.textContent.startsWith('Open risks (')); return p.nextElementSibling.rows[0].getAttribute('aria-hidden'); })()`,
    );
    expect(hidden).toBe('true');
    // Taller bars for more risks: drawn by the browser, not an image.
    const heights = await page.evaluate<number[]>(
      `(() => { const p = [...document.querySelectorAll('p')].find((e) => e.textContent.startsWith('Open risks (')); return [...p.nextElementSibling.rows[0].cells].map((c) => { const bar = c.querySelector('td'); return bar ? bar.getBoundingClientRect().height : 0; }); })()`,
    );
    for (let i = 1; i < WEEKS; i++) expect(Math.sign(heights[i]! - heights[i - 1]!)).toBe(Math.sign(opens[i]! - opens[i - 1]!));
    expect(await page.locator('img, svg').count()).toBe(0);
  });
});
