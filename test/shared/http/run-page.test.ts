import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderRunPage, renderRunStatus, RUN_PAGE_CSP } from '../../../shared/http/run-page';
import type { RunView } from '../../../shared/http/run-link';

const TOKEN = 'eyJ2IjoxfQ.c2lnbmF0dXJl';
const views: Record<RunView['state'], RunView> = {
  refused: { state: 'refused' },
  ready: { state: 'ready', title: 'ACME weekly' },
  limited: { state: 'limited', retryAfterSeconds: 1800, title: 'ACME weekly' },
  running: { state: 'running', exportId: 'export-0001', title: 'ACME <weekly>', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 12345 } },
  done: {
    state: 'done', exportId: 'export-0001', title: 'ACME weekly', finishedAt: '2026-11-23T06:01:00.000Z',
    timeZone: 'Europe/Berlin', fresh: true,
    figures: [{ label: 'Open risks', value: '58', delta: '−2 since 16 Nov' }, { label: 'Overdue', value: '14' }],
    files: [
      { label: 'Workbook', kind: 'Excel', primary: true, name: 'ACME weekly – 2026-11-23.xlsx', format: 'xlsx', bytes: 20480, href: '../links/aaa.bbb' },
      { label: 'Risks', kind: 'CSV', primary: false, name: 'ACME weekly – Risks – 2026-11-23.csv', format: 'csv', bytes: 100, href: '../links/ccc.ddd' },
    ],
  },
  failed: { state: 'failed', exportId: 'export-0001', title: 'ACME weekly' },
};

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('run page', () => {
  it('sends strict headers on every state, and the only inline script and style are the hashed ones', () => {
    for (const view of Object.values(views)) {
      const page = renderRunPage(view, TOKEN);
      expect(page.headers).toMatchObject({
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'content-type': 'text/html; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
      const csp = page.headers['content-security-policy']!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      const scripts = [...page.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      const styles = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
      expect(scripts).toHaveLength(1);
      expect(styles).toHaveLength(1);
      expect(csp).toContain(`script-src ${hashOf(scripts[0]!)}`);
      expect(csp).toContain(`style-src ${hashOf(styles[0]!)}`);
      expect(page.body).not.toMatch(/ on[a-z]+=|style="/);
    }
    expect(RUN_PAGE_CSP).toBe(renderRunPage(views.done, TOKEN).headers['content-security-policy']);
  });

  it('answers 403 for a refused link and 429 for a spent start limit, 200 otherwise', () => {
    expect(renderRunPage(views.refused, TOKEN).statusCode).toBe(403);
    expect(renderRunPage(views.limited, TOKEN).statusCode).toBe(429);
    expect(renderRunPage(views.limited, TOKEN).headers['retry-after']).toBe('1800');
    expect(renderRunPage(views.limited, TOKEN).body).toContain('try again in 30 minutes');
    expect(renderRunPage(views.running, TOKEN).statusCode).toBe(200);
    expect(renderRunStatus(views.refused).statusCode).toBe(403);
  });

  it('shows progress with a labelled bar and a live region, escapes the title, and reloads without script', () => {
    const { body } = renderRunPage(views.running, TOKEN);
    // One accessible name for the bar; "Datasets done" is said once, in the live region.
    expect(body).toContain('<progress id="bar" aria-label="Export progress" max="3" value="1">');
    expect(body.match(/Datasets done/g)).toHaveLength(1);
    expect(body).toContain('aria-live="polite"');
    expect(body).toContain('1 of 3');
    expect(body).toContain('12,345');
    expect(body).toContain('ACME &#60;weekly&#62;');
    expect(body).not.toContain('ACME <weekly>');
    // The no-script reload shows this export (never starts another) and downloads at the end.
    expect(body).toContain(`<noscript><meta http-equiv="refresh" content="3;url=${TOKEN}?export=export-0001&#38;download=1"></noscript>`);
    expect(body).toContain(`data-status="${TOKEN}/status?export=export-0001"`);
  });

  it('lists the files when done, focuses the workbook, and starts its download only when asked', () => {
    const plain = renderRunPage(views.done, TOKEN).body;
    expect(plain).toContain('<a id="workbook" class="button" autofocus href="../links/aaa.bbb" title="ACME weekly – 2026-11-23.xlsx">Download the workbook (<span class="nb">20.0 KiB</span>)</a>');
    expect(plain).toContain('<a class="button secondary" href="../links/ccc.ddd" title="ACME weekly – Risks – 2026-11-23.csv">Risks (CSV, <span class="nb">100 B</span>)</a>');
    // In the report's zone, as its e-mail and workbook write times.
    expect(plain).toContain('<time datetime="2026-11-23T06:01:00.000Z">23/11/2026, 07:01 CET</time>');
    // Each figure a label and its value; numbers and dates in spans that never break ("2027-/01-04").
    expect(plain).toContain(
      '<dl class="figures" aria-label="Headline figures"><div><dt>Open risks</dt><dd><span class="nb">58</span></dd><dd class="delta"><span class="nb">−2</span> since <span class="nb">16</span> Nov</dd></div><div><dt>Overdue</dt><dd><span class="nb">14</span></dd></div></dl>',
    );
    expect(plain).toContain('Your fresh copy is ready.');
    // Figures of a Summary section under its heading, as the e-mail has them.
    const grouped = renderRunPage({ ...views.done, figures: [
      { group: 'Risks', label: 'Open risks', value: '58' },
      { group: 'Risks by ROAM', label: 'Owned', value: '36' },
      { group: 'Risks by ROAM', label: 'Mitigated', value: '34' },
    ] } as RunView, TOKEN).body;
    expect(grouped).toContain(
      '<h2>Risks</h2><dl class="figures" aria-label="Risks"><div><dt>Open risks</dt><dd><span class="nb">58</span></dd></div></dl>\n' +
        '<h2>Risks by ROAM</h2><dl class="figures" aria-label="Risks by ROAM"><div><dt>Owned</dt><dd><span class="nb">36</span></dd></div><div><dt>Mitigated</dt><dd><span class="nb">34</span></dd></div></dl>',
    );
    // The script puts the run link back in the address bar: a bookmark keeps the link, not this export.
    expect(plain).toContain(`data-link="${TOKEN}"`);
    expect(plain).not.toContain('http-equiv="refresh"');
    const downloading = renderRunPage(views.done, TOKEN, { download: true }).body;
    expect(downloading).toContain('<noscript><meta http-equiv="refresh" content="0;url=../links/aaa.bbb"></noscript>');
    expect(downloading).toContain('data-download="1"');
  });

  it('dates an export from earlier and offers a fresh copy, never calling it fresh', () => {
    const old = { ...views.done, fresh: false } as RunView;
    const { body } = renderRunPage(old, TOKEN, { pageToken: '123.k1.abc' });
    expect(body).not.toContain('Your fresh copy is ready');
    expect(body).toContain('This copy was exported on 23/11/2026, 07:01 CET. It is not the latest data.');
    expect(body).toContain('<button class="button" id="start" type="submit" autofocus>Get a fresh copy</button>');
    expect(body.match(/autofocus/g)).toHaveLength(1);
  });

  it('says an expired export is no longer kept, and that the link still works', () => {
    const { body, statusCode } = renderRunPage({ state: 'ready', title: 'ACME weekly', gone: true }, TOKEN, { pageToken: '123.k1.abc' });
    expect(statusCode).toBe(200);
    expect(body).toContain('That export is no longer kept. This link still works: get a fresh copy.');
    expect(body).not.toContain('withdrawn');
  });

  it('offers "Get a fresh copy" as a form POST to the link itself with the page token, and no script submits it', () => {
    const { body, headers } = renderRunPage(views.ready, TOKEN, { pageToken: '123.k1.abc' });
    expect(body).toContain(`<form method="post" action="${TOKEN}"><input type="hidden" name="page" value="123.k1.abc"><button class="button" id="start" type="submit" autofocus>Get a fresh copy</button></form>`);
    expect(headers['content-security-policy']).toContain("form-action 'self'");
    expect(body).not.toMatch(/\.submit\(|requestSubmit|http-equiv="refresh"/);
    expect(renderRunPage(views.ready, TOKEN).body).toContain(`<a class="button" id="retry" href="${TOKEN}">Reload</a>`);
    expect(JSON.parse(renderRunStatus(views.ready).body)).toEqual({ state: 'ready' });
  });

  it('offers "try again" after a failure as the same form, with no internals', () => {
    const { body } = renderRunPage(views.failed, TOKEN, { pageToken: '123.k1.abc' });
    expect(body).toContain(`<form method="post" action="${TOKEN}"><input type="hidden" name="page" value="123.k1.abc"><button class="button" id="start" type="submit" autofocus>Try again</button></form>`);
    expect(body).toContain('role="alert"');
    expect(JSON.parse(renderRunStatus(views.failed).body)).toEqual({
      state: 'failed', exportId: 'export-0001', message: 'The export did not finish. Please try again.',
    });
  });

  it('refusal page says what to do and nothing about why', () => {
    const { body } = renderRunPage(views.refused, TOKEN);
    expect(body).toContain('Ask the person who sent it to you for a new one');
    expect(body).not.toMatch(/signature|expired-key|revoked|kid/);
  });

  it('says the date the changes are since once, as the header over their column, not after every figure', () => {
    const body = renderRunPage({ ...(views.done as Extract<RunView, { state: 'done' }>), changesSince: 'Change since 16/11/2026', figures: [
      { group: 'Risks', label: 'Open risks', value: '58', delta: '−2' },
      { group: 'Risks', label: 'Overdue', value: '14', delta: 'unchanged' },
      { group: 'Risks by ROAM', label: 'Owned', value: '36', delta: '+1' },
    ] }, TOKEN).body;
    expect(body.split('16/11/2026')).toHaveLength(2);
    expect(body).toContain('<h2>Risks</h2><dl class="figures" aria-label="Risks"><div class="since"><dt></dt><dd class="delta">Change since <span class="nb">16/11/2026</span></dd></div><div><dt>Open risks</dt>');
    expect(body).toContain('<dt>Owned</dt><dd><span class="nb">36</span></dd><dd class="delta"><span class="nb">+1</span></dd>');
  });
});
