import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../shared/email/email-content';
import { renderTrendsHtml, renderTrendsText } from '../../../../shared/email/trends-section';
import { emailTrends } from '../../../../shared/report/trends/email';
import type { RunFigures } from '../../../../shared/report/trends/figures';
import { buildTrends } from '../../../../shared/report/trends/series';
import { readerFormat } from '../../../../shared/core/format';

const GB = readerFormat('en-GB', 'UTC');

const run = (day: number, open: number, predictability: number | null): RunFigures => ({
  runId: `r${day}`,
  generatedAt: `2026-11-${String(day).padStart(2, '0')}T06:00:00.000Z`,
  risks: { open, highOrCritical: 1, overdue: 0, withoutOwner: 0 },
  okrThemes: { 'ST-1': { title: 'Pricing <model>', progress: 40 + day } },
  predictability: { b1: { title: 'PI 1', percent: predictability } },
  predictabilityAll: predictability,
  features: { b1: { title: 'PI 1', features: 10, done: day % 10, estimate: 100, estimateDone: day * 3 } },
  changes: null,
});

describe('trends in the e-mail', () => {
  it('on a first run says trends start with the next run and draws no chart', () => {
    const trends = emailTrends(buildTrends([run(2, 5, 80)], [], 'UTC'));
    expect(trends.series).toEqual([]);
    const html = renderTrendsHtml(trends, escapeHtml, '', GB);
    expect(html).toContain('Trends start with the next run');
    expect(html).not.toContain('<table');
    expect(renderTrendsText(trends, GB)).toEqual(['', 'Trends', '  Trends start with the next run: this is the first run of this report with figures to compare.']);
  });

  it('with three runs shows the three, and with twelve only the last eight', () => {
    const three = emailTrends(buildTrends([run(2, 5, 80), run(9, 4, null), run(16, 6, 95)], [], 'UTC'));
    expect(three.note).toBe('Trends over the 3 runs so far; they grow with every run.');
    const open = three.series.find((s) => s.label === 'Open risks')!;
    // Each run by its day in the report's locale (en-GB by default).
    expect(open.points.map(({ run, value }) => ({ run, value }))).toEqual([{ run: '02/11/2026', value: 5 }, { run: '09/11/2026', value: 4 }, { run: '16/11/2026', value: 6 }]);
    const html = renderTrendsHtml(three, escapeHtml, '', GB);
    // A run without a figure shows a dash and no bar; the others their number, as text.
    expect(html).toContain('>80.0 %</td><td style="padding:0 2px;text-align:center;font-size:11px;font-weight:bold;');
    expect(html).toMatch(/>80.0 %<\/td><td[^>]*>–<\/td><td[^>]*>95.0 %<\/td>/);
    expect(three.series.map((s) => s.label)).toContain('OKR progress');

    const twelve = emailTrends(buildTrends(Array.from({ length: 12 }, (_, i) => run(i + 1, i, 70 + i)), [], 'UTC'));
    expect(twelve.series[0]!.points.map((p) => p.run)).toEqual(Array.from({ length: 8 }, (_, i) => `${String(i + 5).padStart(2, '0')}/11/2026`));
  });

  it('names runs left out as unreadable', () => {
    const trends = emailTrends(buildTrends([run(2, 5, 80), run(16, 6, 95)], [{ run: 'dt=2026-11-09/run=r9', reason: 'its manifest is not valid JSON' }], 'UTC'));
    expect(trends.note).toBe('Trends over the 2 runs so far; they grow with every run. Left out, unreadable: dt=2026-11-09/run=r9 (its manifest is not valid JSON).');
  });
});
