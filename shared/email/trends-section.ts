/**
 * The e-mail's trends: one small bar chart per headline series (the last runs), drawn with table
 * cells and bgcolor so it shows in Outlook, Gmail and Apple Mail with images blocked. Each bar's
 * number and run date are text in the rows under the bars, so a screen reader (and a reader of the
 * plain-text part) gets the figures, not a picture of them.
 */
import type { ReaderFormat } from '../core/format';

export interface EmailTrendSeries {
  readonly label: string;
  readonly unit: 'count' | 'percent';
  /** Oldest first: the run's label (its date in the locale), when it ran (ISO), its figure. */
  readonly points: readonly { readonly run: string; readonly at: string; readonly value: number | null }[];
}

export interface EmailTrends {
  /** "Trends start with the next run", or what the trends cover. */
  readonly note: string;
  readonly series: readonly EmailTrendSeries[];
}

const FONT = "font-family:'Segoe UI',Helvetica,Arial,sans-serif;";
const BAR = '#5b8def';
const LAST_BAR = '#0b63c5';
/** Pixels of the tallest bar. */
const HEIGHT = 40;

function valueText(value: number | null, unit: EmailTrendSeries['unit'], format: ReaderFormat): string {
  if (value === null) return '–';
  return unit === 'percent' ? format.percent(value) : format.number(value);
}

/** The axis label of a run: its day and month in the locale (`14/09`, `14.09.`; the year is in the series' range). */
function shortRun(at: string, format: ReaderFormat): string {
  return format.dayMonth(new Date(at));
}

/** The series' runs as the locale writes a range of days: `(06/11/2026 – 27/11/2026)`, `(06.–27.11.2026)`. */
function rangeOf(s: EmailTrendSeries, format: ReaderFormat): string {
  const first = s.points[0];
  const last = s.points.at(-1);
  if (!first || !last) return '';
  return first === last ? format.date(new Date(first.at)) : format.dateRange(new Date(first.at), new Date(last.at));
}

function seriesHtml(s: EmailTrendSeries, escapeHtml: (text: string) => string, format: ReaderFormat): string {
  // Percentages on a 0-100 scale, so a rise from 90 to 95 % does not look like a doubling.
  const max = Math.max(s.unit === 'percent' ? 100 : 1, ...s.points.map((p) => p.value ?? 0));
  const last = s.points.length - 1;
  const cell = 'padding:0 2px;text-align:center;';
  const bars = s.points
    .map((p, i) => {
      const h = p.value === null || p.value <= 0 ? 0 : Math.max(2, Math.round((p.value / max) * HEIGHT));
      const colour = i === last ? LAST_BAR : BAR;
      const barCell =
        h > 0
          ? `<table role="presentation" width="22" cellpadding="0" cellspacing="0" border="0" align="center"><tr><td height="${h}" bgcolor="${colour}" style="background:${colour};height:${h}px;font-size:0;line-height:0;">&nbsp;</td></tr></table>`
          : '';
      return `<td valign="bottom" height="${HEIGHT}" style="${cell}height:${HEIGHT}px;vertical-align:bottom;">${barCell}</td>`;
    })
    .join('');
  const values = s.points.map((p) => `<td style="${cell}font-size:11px;font-weight:bold;${FONT}">${escapeHtml(valueText(p.value, s.unit, format))}</td>`).join('');
  const runs = s.points.map((p) => `<td style="${cell}font-size:10px;color:#616e7c;${FONT}">${escapeHtml(shortRun(p.at, format))}</td>`).join('');
  return (
    `<p style="margin:12px 0 4px 0;font-size:13px;font-weight:600;${FONT}">${escapeHtml(s.label)}` +
    ` <span style="font-weight:normal;color:#616e7c;">(${escapeHtml(rangeOf(s, format))})</span></p>` +
    '<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;">' +
    `<tr aria-hidden="true">${bars}</tr><tr>${values}</tr><tr>${runs}</tr></table>`
  );
}

export function renderTrendsHtml(trends: EmailTrends, escapeHtml: (text: string) => string, headingStyle: string, format: ReaderFormat): string {
  const note = `<p style="margin:0;color:#616e7c;font-size:13px;line-height:18px;${FONT}">${escapeHtml(trends.note)}</p>`;
  return `<h2 style="${headingStyle}">${escapeHtml(format.t('term.trends'))}</h2>${note}${trends.series.map((s) => seriesHtml(s, escapeHtml, format)).join('')}`;
}

export function renderTrendsText(trends: EmailTrends, format: ReaderFormat): string[] {
  const lines = ['', format.t('term.trends'), `  ${trends.note}`];
  for (const s of trends.series) {
    lines.push(`  ${s.label}: ${s.points.map((p) => `${p.run} ${valueText(p.value, s.unit, format)}`).join(', ')}`);
  }
  return lines;
}
