import { formatBytes } from '../core/format-bytes';
import { renderChangesHtml, renderChangesText, type ChangesDigest } from './changes-section';
import { isTextList, listText, type CellValue, type ColumnType, type LinkValue, type ReportSummary, type SummaryLine } from '../table/table';

/**
 * The weekly report e-mail: subject, HTML part and plain-text part, rendered from the run's summary
 * and its download links. Every value is escaped: report names, summary labels and values come
 * from the planning tool, where anyone can type `<script>`.
 */

export interface ReportEmailLink {
  /** e.g. "Risks (CSV)" or the file name. */
  readonly label: string;
  readonly url: string;
  readonly bytes: number;
  readonly format: 'xlsx' | 'csv';
}

export interface ReportEmailInput {
  /** Display name of the report (its title, or its name). */
  readonly reportName: string;
  readonly generatedAt: Date;
  /** IANA zone for {date} and the times shown. */
  readonly timeZone: string;
  /** Placeholders {report} and {date}; default DEFAULT_SUBJECT_TEMPLATE. */
  readonly subjectTemplate?: string;
  readonly summary: ReportSummary;
  readonly links: readonly ReportEmailLink[];
  /** When the links stop working, shown so nobody is surprised by a 403 weeks later. */
  readonly linksExpireAt?: Date | undefined;
  /** "What changed since <date>", shown right after the headline figures. */
  readonly changes?: ChangesDigest | undefined;
  /** A run link (`/run/{token}`): "Get a fresh copy now". */
  readonly freshCopyUrl?: string | undefined;
}

export interface RenderedEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

export const DEFAULT_SUBJECT_TEMPLATE = '{report} report – {date}';

/** Subjects longer than this are cut: SES accepts more, but mail clients show ~70-100 characters. */
const MAX_SUBJECT_LENGTH = 200;

const FORMAT_NAMES: Record<ReportEmailLink['format'], string> = { xlsx: 'Excel', csv: 'CSV' };

export function renderReportEmail(input: ReportEmailInput): RenderedEmail {
  const date = formatDate(input.generatedAt, input.timeZone);
  const generated = `${formatDateTime(input.generatedAt, input.timeZone)} (${input.timeZone})`;
  const expiry = input.linksExpireAt ? formatDate(input.linksExpireAt, input.timeZone) : undefined;
  return {
    subject: renderSubject(input.subjectTemplate ?? DEFAULT_SUBJECT_TEMPLATE, input.reportName, date),
    html: renderHtml(input, generated, expiry),
    text: renderText(input, generated, expiry),
  };
}

function renderSubject(template: string, report: string, date: string): string {
  // A function replacer: a string one would interpret `$&` and friends in the report name.
  const subject = template.replace(/\{(report|date)\}/g, (_match, name: string) => (name === 'report' ? report : date));
  // Line breaks in a subject would start a new header (header injection) in raw MIME.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const clean = subject.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > MAX_SUBJECT_LENGTH ? `${clean.slice(0, MAX_SUBJECT_LENGTH - 1)}…` : clean;
}

const STYLE = {
  body: 'margin:0;padding:24px;background:#f5f6f8;font-family:Segoe UI,Helvetica,Arial,sans-serif;color:#1f2933;',
  card: 'max-width:640px;margin:0 auto;background:#ffffff;border:1px solid #d9dee4;border-radius:6px;padding:24px;',
  h1: 'margin:0 0 4px 0;font-size:20px;',
  muted: 'margin:0 0 16px 0;color:#616e7c;font-size:13px;',
  h2: 'margin:20px 0 8px 0;font-size:15px;',
  table: 'border-collapse:collapse;width:100%;font-size:14px;',
  th: 'text-align:left;font-weight:normal;color:#52606d;padding:4px 12px 4px 0;border-bottom:1px solid #eef0f2;',
  td: 'text-align:right;padding:4px 0;border-bottom:1px solid #eef0f2;',
  list: 'margin:0;padding-left:20px;font-size:14px;',
  link: 'color:#0b63c5;',
} as const;

function renderHtml(input: ReportEmailInput, generated: string, expiry: string | undefined): string {
  const changes = input.changes ? renderChangesHtml(input.changes, escapeHtml, STYLE) : '';
  const sections = input.summary.sections
    .map((section, i) => {
      const rows = section.lines
        .map(
          (line) =>
            `<tr><th scope="row" style="${STYLE.th}">${escapeHtml(line.label)}</th>` +
            `<td style="${STYLE.td}">${htmlValue(line, input.timeZone)}</td></tr>`,
        )
        .join('');
      const html = `<h2 style="${STYLE.h2}">${escapeHtml(section.heading)}</h2><table role="presentation" style="${STYLE.table}">${rows}</table>`;
      return i === changesAfter(input) ? html + changes : html;
    })
    .join('');
  const links = input.links
    .map((link) => {
      const detail = escapeHtml(`${FORMAT_NAMES[link.format]}, ${formatBytes(link.bytes)}`);
      return `<li>${anchor(link.url, link.label)} <span style="color:#616e7c;">(${detail})</span></li>`;
    })
    .join('');
  const expiryNote = expiry
    ? `<p style="${STYLE.muted}">The links work until ${escapeHtml(expiry)}.</p>`
    : '';
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    `<title>${escapeHtml(input.reportName)}</title></head>` +
    `<body style="${STYLE.body}"><div style="${STYLE.card}">` +
    `<h1 style="${STYLE.h1}">${escapeHtml(input.summary.title || input.reportName)}</h1>` +
    `<p style="${STYLE.muted}">Generated ${escapeHtml(generated)}</p>` +
    (changesAfter(input) < 0 ? changes : '') +
    sections +
    (input.links.length > 0 ? `<h2 style="${STYLE.h2}">Files</h2><ul style="${STYLE.list}">${links}</ul>` : '') +
    expiryNote +
    (input.freshCopyUrl ? `<p>${anchor(input.freshCopyUrl, 'Get a fresh copy now')}</p>` : '') +
    '</div></body></html>'
  );
}

function renderText(input: ReportEmailInput, generated: string, expiry: string | undefined): string {
  const lines: string[] = [input.summary.title || input.reportName, `Generated ${generated}`];
  const changes = input.changes ? renderChangesText(input.changes) : [];
  if (changesAfter(input) < 0) lines.push(...changes);
  input.summary.sections.forEach((section, i) => {
    lines.push('', section.heading);
    for (const line of section.lines) lines.push(`  ${line.label}: ${textValue(line, input.timeZone)}`);
    if (i === changesAfter(input)) lines.push(...changes);
  });
  if (input.links.length > 0) {
    lines.push('', 'Files');
    for (const link of input.links) {
      lines.push(`- ${link.label} (${FORMAT_NAMES[link.format]}, ${formatBytes(link.bytes)}):`, `  ${link.url}`);
    }
  }
  if (expiry) lines.push('', `The links work until ${expiry}.`);
  if (input.freshCopyUrl) lines.push('', 'Get a fresh copy now:', `  ${input.freshCopyUrl}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Index of the section the changes follow: the last headline section (role "headline"), or -1
 * (before every section) when the Summary has none.
 */
function changesAfter(input: ReportEmailInput): number {
  let last = -1;
  input.summary.sections.forEach((section, i) => {
    if ((section as { role?: unknown }).role === 'headline') last = i;
  });
  return last;
}

function htmlValue(line: SummaryLine, timeZone: string): string {
  const value = line.value;
  if (isLink(value)) return anchor(value.url, value.text);
  const delta = line.delta ? ` <span style="color:#616e7c;">(${escapeHtml(line.delta)})</span>` : '';
  return escapeHtml(formatValue(value, line.type, timeZone)) + delta;
}

function textValue(line: SummaryLine, timeZone: string): string {
  const value = line.value;
  if (isLink(value)) return value.text === value.url ? value.url : `${value.text} <${value.url}>`;
  return formatValue(value, line.type, timeZone) + (line.delta ? ` (${line.delta})` : '');
}

function formatValue(value: Exclude<CellValue, LinkValue>, type: ColumnType | undefined, timeZone: string): string {
  if (value === null || value === undefined || value === '') return '–';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') {
    const number = NUMBER_FORMAT.format(value);
    return type === 'percent' ? `${number} %` : number;
  }
  if (isTextList(value)) return value.length > 0 ? listText(value) : '–';
  if (value instanceof Date) {
    // Calendar dates are carried at 00:00 UTC (see table.ts): formatting them in the report's zone
    // would show the previous day west of Greenwich.
    return type === 'date' ? value.toISOString().slice(0, 10) : formatDateTime(value, timeZone);
  }
  return value;
}

const NUMBER_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** Only http(s) URLs become links; anything else (javascript:, data:) is shown as text. */
function anchor(url: string, text: string): string {
  if (!/^https?:\/\//i.test(url)) return escapeHtml(text);
  return `<a href="${escapeHtml(url)}" style="${STYLE.link}">${escapeHtml(text)}</a>`;
}

function isLink(value: CellValue): value is LinkValue {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !isTextList(value);
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function parts(date: Date, timeZone: string, withTime: boolean): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(withTime && { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' as const }),
  });
  return Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
}

/** YYYY-MM-DD of the instant in the zone. */
function formatDate(date: Date, timeZone: string): string {
  const p = parts(date, timeZone, false);
  return `${p.year}-${p.month}-${p.day}`;
}

function formatDateTime(date: Date, timeZone: string): string {
  const p = parts(date, timeZone, true);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}
