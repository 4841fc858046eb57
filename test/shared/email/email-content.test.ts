import { describe, expect, it } from 'vitest';
import { renderReportEmail, type ReportEmailInput } from '../../../shared/email/email-content';
import { readerFormat, type ReaderFormat } from '../../../shared/core/format';

const base: ReportEmailInput = {
  reportName: 'Acme weekly',
  generatedAt: new Date('2024-05-05T23:30:00Z'),
  format: readerFormat('en-GB', 'Europe/Berlin'),
  runId: 'run-42',
  summary: {
    title: 'Acme weekly',
    sections: [
      {
        heading: 'Risks',
        role: 'headline',
        lines: [
          { label: 'Open risks', value: 1234, type: 'integer' },
          { label: 'PI end', value: new Date('2024-06-30T00:00:00Z'), type: 'date' },
          { label: 'Last sync', value: new Date('2024-05-05T22:00:00Z'), type: 'datetime' },
          { label: 'Blocked', value: false },
          { label: 'Owner', value: null },
          { label: 'Board', value: { text: 'Program board', url: 'https://acme.example.com/board/7' } },
        ],
      },
      {
        heading: 'Predictability by board',
        role: 'headline',
        lines: [],
        grid: {
          columns: [{ label: 'Board' }, { label: 'Committed', type: 'integer', brief: true }, { label: 'Predictability', type: 'percent', bar: true }],
          rows: [{ values: ['Train A', 7, 85.4], fills: [null, null, '#C6EFCE'] }],
        },
      },
      {
        heading: 'Needs attention',
        role: 'attention',
        lines: [],
        grid: {
          columns: [{ label: 'What' }, { label: 'Item', type: 'link' }, { label: 'Why' }],
          rows: [{ values: ['Risk', { text: 'ENT-7 Supplier may fail', url: "#'Risks'!A9" }, 'Critical · no owner'] }],
        },
      },
      { heading: 'Risks by level and status', role: 'detail', lines: [{ label: 'detail only', value: 1 }] },
      { heading: 'About this report', role: 'about', lines: [{ label: 'Planning API', value: 'http://127.0.0.1:1234' }] },
    ],
  },
  links: [
    { label: 'Workbook', url: 'https://links.example.com/d/abc.def', bytes: 2_500_000, kind: 'Excel', primary: true },
    { label: 'Risks', url: 'https://links.example.com/d/ghi.jkl?x=1&y=2', bytes: 900, kind: 'CSV' },
  ],
  linksExpireAt: new Date('2024-05-20T06:00:00Z'),
};

describe('renderReportEmail', () => {
  it('renders the default subject with the date in the report time zone and no doubled words', () => {
    // 23:30 UTC on the 5th is already the 6th in Berlin.
    expect(renderReportEmail(base).subject).toBe('Acme weekly – 06/05/2024');
    expect(renderReportEmail({ ...base, reportName: 'Demo company – weekly planning report' }).subject).toBe(
      'Demo company – weekly planning report – 06/05/2024',
    );
  });

  it('uses a subject template, literally (no $-patterns), without line breaks', () => {
    expect(renderReportEmail({ ...base, subjectTemplate: '[{report}] {date} / {title}' }).subject).toBe(
      '[Acme weekly] 06/05/2024 / Acme weekly',
    );
    expect(renderReportEmail({ ...base, reportName: "$& $' costs", subjectTemplate: '{report}' }).subject).toBe("$& $' costs");
    expect(renderReportEmail({ ...base, reportName: 'a\r\nBcc: evil@example.com' }).subject).toBe('a Bcc: evil@example.com – 06/05/2024');
  });

  it('opens with the first headline figures, Needs attention and the workbook button (the HTML part, read on a phone, puts the other headline tables after the button), then other files and small print', () => {
    const { html, text } = renderReportEmail(base);
    // The text part in the Summary's order: the headline figures and tables, then Needs attention.
    const textOrder = ['Open risks', 'Predictability by board', 'Needs attention', 'Open the workbook', 'Other files', 'Run run-42'];
    const htmlOrder = ['Open risks', 'Needs attention', 'Open the workbook', 'Predictability by board', 'Other files', 'Run run-42'];
    const at = (s: string, within: string) => within.indexOf(s);
    for (const [part, order] of [[html, htmlOrder], [text, textOrder]] as const) {
      const positions = order.map((o) => at(o, part));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      // Detail and the run's metadata (API addresses) stay in the workbook.
      expect(part).not.toContain('detail only');
      expect(part).not.toContain('127.0.0.1');
    }
    expect(html).toMatch(/Open risks<\/th><td[^>]*>1,234<\/td>/);
    expect(html).toMatch(/>30\/06\/2024<\/td>/);
    expect(html).toMatch(/>06\/05\/2024, 00:00 CEST<\/td>/);
    expect(html).toMatch(/>no<\/td>/);
    expect(html).toMatch(/>–<\/td>/);
    expect(html).toContain('<a href="https://acme.example.com/board/7" style="color:#0b63c5;text-decoration:underline;">Program board</a>');
    expect(html).toMatch(/<a href="https:\/\/links.example.com\/d\/abc.def" style="[^"]*">Open the workbook<\/a>/);
    expect(html).toContain('href="https://links.example.com/d/ghi.jkl?x=1&amp;y=2"');
    expect(html).toContain('Workbook (Excel, 2.4 MiB)');
    expect(html).toContain('(CSV, 900 B)');
    expect(html).toContain('Generated 06/05/2024, 01:30 CEST (Europe/Berlin)');
    expect(html).toContain('The links work until 20/05/2024.');
    // A link into the workbook is text in the e-mail; brief columns are left out; fills and bars are kept.
    expect(html).toContain('ENT-7 Supplier may fail');
    expect(html).not.toContain("#'Risks'");
    expect(html).not.toContain('Committed');
    expect(html).toContain('bgcolor="#C6EFCE"');
    expect(html).toContain('85.4 %');

    expect(text).toContain('Acme weekly\nGenerated 06/05/2024, 01:30 CEST (Europe/Berlin)\n');
    expect(text).toContain('\nRisks\n  Open risks: 1,234\n');
    expect(text).toContain('  Board: Program board <https://acme.example.com/board/7>\n');
    expect(text).toContain('  Train A: Predictability 85.4 %\n');
    expect(text).toContain('  - Risk ENT-7 Supplier may fail: Critical · no owner\n');
    expect(text).toContain('Open the workbook (Excel, 2.4 MiB):\n  https://links.example.com/d/abc.def\n');
    expect(text).toContain('- Risks (CSV, 900 B):\n  https://links.example.com/d/ghi.jkl?x=1&y=2\n');
    expect(text).toContain('Run run-42, generated 06/05/2024, 01:30 CEST (Europe/Berlin).\nThe links work until 20/05/2024.\n');
    expect(text).not.toMatch(/<(a|td|th|table|h[12])\b/);
  });

  it('escapes every value in the HTML part', () => {
    const evil = '<script>alert("x")</script> & \'quoted\'';
    const { html, text } = renderReportEmail({
      ...base,
      reportName: evil,
      summary: {
        title: evil,
        sections: [
          {
            heading: evil,
            role: 'headline',
            lines: [
              { label: evil, value: evil },
              { label: 'link', value: { text: evil, url: 'https://x.example.com/?a="b"&c=<d>' } },
              { label: 'js', value: { text: 'click', url: 'javascript:alert(1)' } },
            ],
            grid: { columns: [{ label: evil }], rows: [{ values: [evil], fills: ['"><script>'] }] },
          },
        ],
      },
      links: [{ label: evil, url: 'https://x.example.com/"onmouseover="alert(1)', bytes: 1, kind: 'CSV' }],
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('"x"');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;');
    expect(html).toContain('href="https://x.example.com/?a=&quot;b&quot;&amp;c=&lt;d&gt;"');
    expect(html).toContain('href="https://x.example.com/&quot;onmouseover=&quot;alert(1)"');
    expect(html).toContain('<title>&lt;script&gt;');
    // The plain-text part is not HTML: values appear as typed.
    expect(text).toContain(evil);
  });

  it('shows a summary without roles (an older manifest) whole, less its metadata', () => {
    const { text } = renderReportEmail({
      ...base,
      summary: { title: 'Old', sections: [{ heading: 'Rows', lines: [{ label: 'risks', value: 3 }] }, { heading: 'About this report', role: 'about', lines: [{ label: 'Run id', value: 'x' }] }] },
    });
    expect(text).toContain('\nRows\n  risks: 3\n');
    expect(text).not.toContain('Run id');
  });

  it('has no button and no file list when there are no links', () => {
    const { html, text } = renderReportEmail({ ...base, links: [], linksExpireAt: undefined });
    for (const part of [html, text]) {
      expect(part).not.toContain('Open the workbook');
      expect(part).not.toContain('Other files');
      expect(part).not.toContain('links work until');
    }
  });
});

describe('the HTML grid\'s headers', () => {
  const grid = (format: ReaderFormat): ReportEmailInput => ({
    ...base,
    format,
    summary: {
      title: 'Acme weekly',
      sections: [{
        heading: 'OKR',
        role: 'headline',
        lines: [],
        grid: { columns: [{ label: 'Strategisches Thema', short: 'Thema' }, { label: 'Gefährdet', short: 'In Gefahr', type: 'integer' }, { label: 'Erledigt', type: 'integer' }], rows: [{ values: ['ST-1', 1, 2] }] },
      }],
    },
  });
  const headers = (html: string) => [...html.matchAll(/<th scope="col" style="([^"]*)">([^<]*)<\/th>/g)].map((m) => ({ style: m[1]!, text: m[2]! }));

  it('write a column\'s short header where it has one, its label otherwise', () => {
    expect(headers(renderReportEmail(grid(readerFormat('de-DE', 'Europe/Berlin'))).html).map((h) => h.text)).toEqual(['Thema', 'In Gefahr', 'Erledigt']);
  });

  it('let a header break only between words (breaking anywhere split "Gefährdet" into "Gef|ähr|det" on a phone)', () => {
    const styles = headers(renderReportEmail(grid(readerFormat('de-DE', 'Europe/Berlin'))).html).map((h) => h.style);
    expect(styles).toHaveLength(3);
    for (const style of styles) expect(style).not.toMatch(/overflow-wrap:anywhere|word-break:break-all|hyphens:auto/);
  });
});
