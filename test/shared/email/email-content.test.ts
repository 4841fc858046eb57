import { describe, expect, it } from 'vitest';
import { renderReportEmail, type ReportEmailInput } from '../../../shared/email/email-content';

const base: ReportEmailInput = {
  reportName: 'Acme weekly',
  generatedAt: new Date('2024-05-05T23:30:00Z'),
  timeZone: 'Europe/Berlin',
  summary: {
    title: 'Acme weekly',
    sections: [
      {
        heading: 'Rows',
        lines: [
          { label: 'Risks', value: 1234, type: 'integer' },
          { label: 'Board items', value: 300000 },
        ],
      },
      {
        heading: 'Progress',
        lines: [
          { label: 'PI objectives completed', value: 45.5, type: 'percent' },
          { label: 'PI end', value: new Date('2024-06-30T00:00:00Z'), type: 'date' },
          { label: 'Last sync', value: new Date('2024-05-05T22:00:00Z'), type: 'datetime' },
          { label: 'Blocked', value: false },
          { label: 'Owner', value: null },
          { label: 'Board', value: { text: 'Program board', url: 'https://acme.example.com/board/7' } },
        ],
      },
    ],
  },
  links: [
    { label: 'acme-weekly.xlsx', url: 'https://links.example.com/d/abc.def', bytes: 2_500_000, format: 'xlsx' },
    { label: 'risks.csv', url: 'https://links.example.com/d/ghi.jkl?x=1&y=2', bytes: 900, format: 'csv' },
  ],
  linksExpireAt: new Date('2024-05-20T06:00:00Z'),
};

describe('renderReportEmail', () => {
  it('renders the default subject with the date in the report time zone', () => {
    // 23:30 UTC on the 5th is already the 6th in Berlin.
    expect(renderReportEmail(base).subject).toBe('Acme weekly report – 2024-05-06');
  });

  it('uses a subject template, literally (no $-patterns), without line breaks', () => {
    expect(renderReportEmail({ ...base, subjectTemplate: '[{report}] {date} / {report}' }).subject).toBe(
      '[Acme weekly] 2024-05-06 / Acme weekly',
    );
    expect(renderReportEmail({ ...base, reportName: "$& $' costs", subjectTemplate: '{report}' }).subject).toBe(
      "$& $' costs",
    );
    expect(renderReportEmail({ ...base, reportName: 'a\r\nBcc: evil@example.com' }).subject).toBe(
      'a Bcc: evil@example.com report – 2024-05-06',
    );
  });

  it('renders summary figures and one link per file in HTML and text', () => {
    const { html, text } = renderReportEmail(base);
    expect(html).toContain('<th scope="row" style="');
    expect(html).toMatch(/Risks<\/th><td[^>]*>1,234<\/td>/);
    expect(html).toMatch(/Board items<\/th><td[^>]*>300,000<\/td>/);
    expect(html).toMatch(/>45.5 %<\/td>/);
    expect(html).toMatch(/>2024-06-30<\/td>/);
    expect(html).toMatch(/>2024-05-06 00:00<\/td>/);
    expect(html).toMatch(/>no<\/td>/);
    expect(html).toMatch(/>–<\/td>/);
    expect(html).toContain('<a href="https://acme.example.com/board/7" style="color:#0b63c5;">Program board</a>');
    expect(html).toContain('<a href="https://links.example.com/d/abc.def" style="color:#0b63c5;">acme-weekly.xlsx</a>');
    expect(html).toContain('href="https://links.example.com/d/ghi.jkl?x=1&amp;y=2"');
    expect(html).toContain('(Excel, 2.4 MiB)');
    expect(html).toContain('(CSV, 900 B)');
    expect(html).toContain('Generated 2024-05-06 01:30 (Europe/Berlin)');
    expect(html).toContain('The links work until 2024-05-20.');
    expect(html).toContain('style="');

    expect(text).toContain('Acme weekly\nGenerated 2024-05-06 01:30 (Europe/Berlin)\n');
    expect(text).toContain('\nRows\n  Risks: 1,234\n  Board items: 300,000\n');
    expect(text).toContain('  PI objectives completed: 45.5 %\n');
    expect(text).toContain('  Board: Program board <https://acme.example.com/board/7>\n');
    expect(text).toContain('- acme-weekly.xlsx (Excel, 2.4 MiB):\n  https://links.example.com/d/abc.def\n');
    expect(text).toContain('- risks.csv (CSV, 900 B):\n  https://links.example.com/d/ghi.jkl?x=1&y=2\n');
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
            lines: [
              { label: evil, value: evil },
              { label: 'link', value: { text: evil, url: 'https://x.example.com/?a="b"&c=<d>' } },
              { label: 'js', value: { text: 'click', url: 'javascript:alert(1)' } },
            ],
          },
        ],
      },
      links: [{ label: evil, url: 'https://x.example.com/"onmouseover="alert(1)', bytes: 1, format: 'csv' }],
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

  it('omits the file list when there are no links', () => {
    const { html, text } = renderReportEmail({ ...base, links: [], linksExpireAt: undefined });
    expect(html).not.toContain('Files');
    expect(text).not.toContain('Files');
    expect(text).not.toContain('links work until');
  });
});
