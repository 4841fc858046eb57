// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingEmail } from '../../../shared/email/ses-mailer';
import { buildReportEmail } from '../../../shared/messages/report-email';
import { buildChannelMessage } from '../../../shared/messages/report-message';
import type { ExportResult } from '../../../shared/report/run/result';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { launchBrowser } from '../../support/browser';
import { LocalLedger } from '../../../shared/ledger/local-ledger';

/** The demo's weekly e-mail, opened in a real browser: what a reader sees, in the order they see it. */
describe('the report e-mail in a browser (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  let browser: Browser;
  let email: OutgoingEmail;
  let page: Page;
  let result: ExportResult;
  let definition: ReturnType<typeof parseReportDefinition>;
  const now = new Date('2026-11-23T06:00:00Z');

  beforeAll(async () => {
    [sim, browser] = await Promise.all([startSimulator({ tenant: 'demo' }), launchBrowser()]);
    root = await mkdtemp(join(tmpdir(), 'email-browser-'));
    const storage = new LocalDirectoryStorage(root);
    definition = parseReportDefinition({
      name: 'rte-weekly',
      title: 'Demo company – weekly planning report',
      datasets: { risks: {}, okrs: {}, piObjectives: {} },
      email: { to: ['rte@example.test'] },
      links: {
        riskUrl: 'https://planning.example.test/risks/{registerId}/{id}',
        okrUrl: 'https://planning.example.test/okrs/{key}',
        piObjectiveUrl: 'https://planning.example.test/boards/{boardId}/objectives/{id}',
      },
    });
    result = await runOf(definition).withStorage(storage).withLedger(new LocalLedger(join(root, '.ledger'))).against(sim).at(now).withRunId('run-7').export();
    email = await buildReportEmail(definition as typeof definition & { email: NonNullable<typeof definition.email> }, result, {
      from: 'reports@example.test',
      linkBaseUrl: 'https://reports.example.test',
      key: { id: 'k1', secret: 'k'.repeat(48) },
      now,
      storage,
    });
    page = await browser.newPage();
    await page.setViewportSize({ width: 800, height: 1200 });
    await page.setContent(email.html);
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('links each item of Needs attention to it in the planning tool, from the definition\'s link templates', async () => {
    const links = await page.evaluate<{ text: string; href: string }[]>(`(() => {
      const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Needs attention');
      const table = heading && heading.nextElementSibling;
      return table ? [...table.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.getAttribute('href') })) : [];
    })()`);
    const risks = links.filter((l) => l.href.includes('/risks/'));
    expect(risks.length).toBeGreaterThan(0);
    for (const link of risks) {
      const risk = sim.tenant.allRisks.find((r) => link.text.startsWith(`${r.key} `))!;
      expect(link.href).toBe(`https://planning.example.test/risks/${encodeURIComponent(risk.riskRegister.id)}/${encodeURIComponent(risk.id)}`);
    }
    // Every linked item goes to the planning tool; none to the workbook's inner addresses.
    expect(links.every((l) => l.href.startsWith('https://planning.example.test/'))).toBe(true);
    expect(email.text).toContain(`<${risks[0]!.href}>`);
    // Chat messages link the same items to the same addresses.
    const chat = buildChannelMessage(definition, result);
    const linked = chat.attention.filter((l) => l.url !== undefined);
    expect(linked.map((l) => l.url)).toEqual(links.map((l) => l.href));
  });

  it('has a subject without doubled words', () => {
    expect(email.subject).toBe('Demo company – weekly planning report – 23/11/2026');
  });

  it('shows the risks, then Needs attention, then one button, then the other headline figures, the other files and the small print', async () => {
    const text = await page.locator('body').innerText();
    // Phone first: the first headline figures (risks), Needs attention and the button; then the other
    // headline figures (OKR progress, PI predictability), the files and the small print.
    const order = ['Open risks', 'Needs attention', 'Open the workbook', 'OKR progress by strategic theme', 'Predictability by board', 'Other files', 'Run run-7'];
    const positions = order.map((o) => text.indexOf(o));
    expect(positions.every((p) => p >= 0), `missing one of ${order.join(', ')} in:\n${text}`).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).not.toMatch(/127\.0\.0\.1|localhost|Company prefix/);
    const open = sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status)).length;
    // Page scripts are strings: the project's types describe Node, not the DOM.
    const shown = await page.evaluate<string | undefined>(
      `[...document.querySelectorAll('th')].find((e) => e.textContent === 'Open risks')?.parentElement?.querySelector('td')?.textContent`,
    );
    expect(shown).toBe(String(open));
  });

  it('makes the workbook button the one prominent, visible link, and lists the PDF and the CSVs by name', async () => {
    const button = page.getByRole('link', { name: 'Open the workbook' });
    await expect.poll(() => button.count()).toBe(1);
    expect(await button.isVisible()).toBe(true);
    expect(await button.getAttribute('href')).toMatch(/^https:\/\/reports\.example\.test\/links\//);
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(36);
    const colour = await page.evaluate<string>(
      `getComputedStyle([...document.querySelectorAll('a')].find((a) => a.textContent === 'Open the workbook').parentElement).backgroundColor`,
    );
    expect(colour).toBe('rgb(11, 99, 197)');
    const others = await page.locator('ul li a').allInnerTexts();
    expect(others).toEqual(expect.arrayContaining(['Risks', 'OKRs', 'PI objectives']));
    // The format and size once, in brackets: "Risks (CSV, 54.9 KiB)".
    const items = await page.locator('ul li').allInnerTexts();
    expect(items.find((t) => t.startsWith('Risks'))).toMatch(/^Risks \(CSV, [\d.]+ KiB\)$/);
    // The PDF for the meeting (a default format), right after the workbook.
    expect(items[0]).toMatch(/^Summary and trends \(PDF, [\d.]+ KiB\)$/);
    expect(others.some((t) => t.endsWith('.csv') || t.endsWith('.xlsx'))).toBe(false);
  });

  it('marks predictability in words and colour: green in the 80-100 % band, amber outside, none before the PI is scored; each with a bar', async () => {
    // HTMLTableElement.rows holds the grid's own rows, not those of the bars nested in its cells.
    const cells = await page.evaluate<{ text: string; bg: string; bars: number; band: string }[]>(`(() => {
      const th = [...document.querySelectorAll('th')].filter((e) => e.textContent === 'Predictability').at(-1);
      const column = th.cellIndex;
      return [...th.closest('table').rows].slice(1).map((row) => {
        const cell = row.cells[column];
        return { text: cell.innerText, bg: getComputedStyle(cell).backgroundColor, bars: cell.querySelectorAll('td[bgcolor="#5b8def"]').length, band: row.cells[column + 1].innerText };
      });
    })()`);
    expect(cells).toHaveLength(sim.tenant.boards.length);
    expect(cells.some((c) => c.band !== 'so far (PI in progress)')).toBe(true);
    for (const cell of cells) {
      const percent = Number(cell.text.replace(/[^\d.]/g, ''));
      const words = percent < 80 ? 'below 80 %' : percent > 100 ? 'above 100 %' : 'in band';
      if (cell.band === 'so far (PI in progress)') expect(cell.bg).toBe('rgba(0, 0, 0, 0)');
      else {
        expect(cell.band).toBe(words);
        expect(cell.bg).toBe(words === 'in band' ? 'rgb(198, 239, 206)' : 'rgb(255, 235, 156)');
      }
      expect(cell.bars).toBe(percent > 0 ? 1 : 0);
    }
  });

  it('fits a phone screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.getByRole('link', { name: 'Open the workbook' }).isVisible()).toBe(true);
  });

  it('answers on the first screen of a 390-px phone: the headline figures start within 900 px, Needs attention right after them', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const tops = await page.evaluate<Record<string, number>>(`(() => Object.fromEntries(
      [...document.querySelectorAll('h2')].map((h) => [h.textContent, h.getBoundingClientRect().top + window.scrollY])))()`);
    expect(tops['Risks']).toBeLessThan(900);
    // Needs attention follows the headline figures (risks, OKR progress, PI predictability), before the files.
    const headings = Object.entries(tops).sort((a, b) => a[1] - b[1]).map(([heading]) => heading);
    expect(headings.indexOf('Needs attention')).toBeGreaterThan(headings.indexOf('Risks'));
    expect(tops['Needs attention']).toBeLessThan(tops['Other files'] ?? Number.POSITIVE_INFINITY);
  });

  it('says the same in the plain-text part', () => {
    for (const s of ['Open risks', 'Needs attention', 'Open the workbook', 'Run run-7', 'The links work until']) expect(email.text).toContain(s);
    expect(email.text.indexOf('Needs attention')).toBeLessThan(email.text.indexOf('Open the workbook'));
  });
});
