import type { ReportSummary, SummarySection } from '../table/table';
import { changesSection, type ChangesDigest } from './changes-section';
import { renderEmailHtml } from './email-html';
import type { ReaderFormat } from '../core/format';
import { cellText, fileDetail } from './email-format';
import { changesSinceSentence, figureText } from './figure-change';
import { renderTrendsText, type EmailTrends } from './trends-section';
import type { EmailModel, ReportEmailLink } from './email-model';
import { attentionSentence, attentionTally } from '../table/attention-tally';

export { escapeHtml } from './email-format';

/**
 * The weekly report e-mail: subject, HTML part and plain-text part, rendered from the run's summary
 * and its download links. It reads top to bottom like the Summary sheet: the headline figures and
 * "Needs attention" first, then one button to open the workbook, then the other files, then the
 * small print (run id, link expiry). Every value is escaped: report names, summary labels and
 * values come from the planning tool, where anyone can type `<script>`.
 */

export interface ReportEmailInput {
  /** Display name of the report (its title, or its name). */
  readonly reportName: string;
  readonly generatedAt: Date;
  /** The run's locale and zone: how {date}, the times and every figure are written (core/format.ts). */
  readonly format: ReaderFormat;
  /** Placeholders {report} (or {title}) and {date}; default DEFAULT_SUBJECT_TEMPLATE. */
  readonly subjectTemplate?: string;
  readonly summary: ReportSummary;
  readonly links: readonly ReportEmailLink[];
  /** When the links stop working, shown so nobody is surprised by a 403 weeks later. */
  readonly linksExpireAt?: Date | undefined;
  /** Shown in the small print, for support questions. */
  readonly runId?: string | undefined;
  /** A run link (`/run/{token}`): "Get a fresh copy now". */
  readonly freshCopyUrl?: string | undefined;
  /** "What changed since <date>", shown right after the headline figures (docs/changes.md). */
  readonly changes?: ChangesDigest | undefined;
  /** Small bar charts of the headline figures over the last runs, after the Summary's sections. */
  readonly trends?: EmailTrends | undefined;
  /** This recipient's one-click unsubscribe link (`/unsubscribe/{token}`), in the footer and the List-Unsubscribe header. */
  readonly unsubscribeUrl?: string | undefined;
  /** What is this reader's own, before the Summary's sections: the lines they set that the run crossed, what they own that needs them. */
  readonly lead?: readonly SummarySection[] | undefined;
}

export interface RenderedEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

export const DEFAULT_SUBJECT_TEMPLATE = '{report} – {date}';

/** Subjects longer than this are cut: SES accepts more, but mail clients show ~70-100 characters. */
const MAX_SUBJECT_LENGTH = 200;


/**
 * The report e-mail of one run: subject (from the definition's template), HTML and plain-text parts
 * built from one model, so both say the same; figures and dates in the report's locale and time zone.
 */
export function renderReportEmail(input: ReportEmailInput): RenderedEmail {
  const date = input.format.date(input.generatedAt);
  const model = emailModel(input);
  return {
    subject: renderSubject(input.subjectTemplate ?? DEFAULT_SUBJECT_TEMPLATE, input.reportName, date),
    html: renderEmailHtml(model),
    text: renderText(model),
  };
}

/** The roles the e-mail shows, in the Summary's order; detail and the run's metadata stay in the workbook. */
const EMAIL_ROLES: ReadonlySet<string> = new Set(['headline', 'attention', 'changes']);

/**
 * The e-mail carries what a reader acts on, in the order of every surface: the headline figures
 * (risks, OKR progress, PI predictability), then "Needs attention", then what changed. A summary
 * without roles (written before they existed) is shown whole, less its metadata, rather than not at
 * all. A summary without its own "What changed" (one rebuilt from an older manifest) gets the
 * digest's, after "Needs attention".
 */
function emailSections(summary: ReportSummary, digest: ChangesDigest | undefined, format: ReaderFormat): SummarySection[] {
  const main = summary.sections.filter((s) => EMAIL_ROLES.has(s.role ?? ''));
  const sections = main.length > 0 ? main : summary.sections.filter((s) => s.role !== 'about');
  if (!digest || sections.some((s) => s.role === 'changes')) return sections;
  const at = sections.findLastIndex((s) => s.role === 'headline' || s.role === 'attention') + 1;
  return [...sections.slice(0, at), changesSection(digest, format), ...sections.slice(at)];
}

function emailModel(input: ReportEmailInput): EmailModel {
  const format = input.format;
  const generated = `${format.dateTime(input.generatedAt)} (${format.timeZone})`;
  const workbook = input.links.find((l) => l.primary === true);
  const smallPrint = [
    input.runId ? format.t('email.runGenerated', { runId: input.runId, when: generated }) : format.t('email.generatedOnly', { when: generated }),
    ...(input.linksExpireAt ? [format.t('email.linksUntil', { date: format.date(input.linksExpireAt) })] : []),
    ...new Set(input.summary.sections.flatMap((section) => (section.smallPrint ? [section.smallPrint] : []))),
  ];
  return {
    title: input.summary.title || input.reportName,
    generated,
    sections: [...(input.lead ?? []), ...emailSections(input.summary, input.changes, format)],
    leading: input.lead?.length ?? 0,
    workbook,
    otherFiles: input.links.filter((l) => l !== workbook),
    freshCopyUrl: input.freshCopyUrl,
    smallPrint,
    format: input.format,
    trends: input.trends,
    preheader: headlineSentence(input.summary, input.format),
    unsubscribeUrl: input.unsubscribeUrl,
  };
}

/** The figures a one-line headline names, by their one name (glossary.ts), in the order of every surface. */
const HEADLINE_FIGURES = ['term.openRisks', 'term.severeRisks', 'term.okrProgress', 'term.predictability'] as const;

/**
 * "Open risks 58 · Open high or critical risks 30 · OKR progress 62.1 % · Predictability 53.1 % · 15 need
 * attention: 13 risks, 2 OKRs": the headline figures in one line, what an inbox shows beside the subject and what
 * Slack and Teams show in a notification, so the list itself says whether the message needs opening. A
 * provisional figure (predictability before its PI is scored) is left out: it is not the result yet.
 */
export function headlineSentence(summary: ReportSummary, format: ReaderFormat): string {
  const lines = summary.sections.filter((s) => s.role === 'headline').flatMap((s) => s.lines);
  const figures = HEADLINE_FIGURES.flatMap((id) => {
    // The summary was written in the reader's language: its labels are this format's words.
    const label = format.t(id);
    const line = lines.find((l) => l.label === label && typeof l.value === 'number' && l.provisional !== true);
    return line ? [`${label} ${cellText(line.value, line.type, format, false)}`] : [];
  });
  return [...figures, attentionSentence(attentionTally(summary), format)].join(' · ');
}

function renderSubject(template: string, report: string, date: string): string {
  // A function replacer: a string one would interpret `$&` and friends in the report name.
  const subject = template.replace(/\{(report|title|date)\}/g, (_match, name: string) => (name === 'date' ? date : report));
  return subjectLine(subject, MAX_SUBJECT_LENGTH);
}

/**
 * A subject as one clean line of at most `max` characters: line breaks in a subject would start a
 * new header (header injection) in raw MIME, and other control characters garble the inbox list. The
 * report's subject and the alert's (whose lines quote risk titles) are cleaned by it alike.
 */
export function subjectLine(subject: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const clean = subject.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function renderText(model: EmailModel): string {
  const format = model.format;
  // The date the changes in brackets are since, said once under the date of the run.
  const since = changesSinceSentence(model.sections, format);
  const lines: string[] = [model.title, format.t('email.generated', { when: model.generated }), ...(since ? [since] : [])];
  for (const section of model.sections) {
    lines.push('', section.heading);
    for (const line of section.lines) {
      // A linked label keeps its tracker address, as the HTML part's link does.
      const label = line.link ? cellText({ ...line.link, text: line.label }, 'link', format, true) : line.label;
      lines.push(`  ${format.t('term.labelled', { label, value: figureText(line, format, true) })}`);
    }
    const grid = section.grid;
    if (!grid) continue;
    const shown = grid.columns.map((c, i) => ({ c, i })).filter(({ c }) => !c.brief);
    for (const row of grid.rows) {
      if (section.role === 'attention') {
        const [what, item, why] = row.values;
        // An "n more" row names no kind: the rows above it do.
        const named = [what === null || what === undefined ? '' : cellText(what, 'text', format, false), item ? cellText(item, 'link', format, true) : ''].filter((p) => p !== '').join(' ');
        const reason = cellText(why, 'text', format, false);
        lines.push(`  - ${item ? format.t('term.labelled', { label: named, value: reason }) : `${named} ${reason}`.trim()}`);
        continue;
      }
      const [first, ...rest] = shown;
      const head = first ? cellText(row.values[first.i], first.c.type, format, true) : '';
      const tail = rest.map(({ c, i }) => `${c.label} ${cellText(row.values[i], c.type, format, true)}`).join(', ');
      lines.push(`  ${format.t('term.labelled', { label: head, value: tail })}`);
    }
  }
  if (model.trends) lines.push(...renderTrendsText(model.trends, model.format));
  if (model.workbook) {
    lines.push('', `${format.t('email.openWorkbook')} (${fileDetail(model.workbook, format)}):`, `  ${model.workbook.url}`);
  }
  if (model.otherFiles.length > 0) {
    lines.push('', format.t('email.otherFiles'));
    for (const link of model.otherFiles) lines.push(`- ${link.label} (${fileDetail(link, format)}):`, `  ${link.url}`);
  }
  if (model.freshCopyUrl) lines.push('', `${format.t('email.freshCopy')}:`, `  ${model.freshCopyUrl}`);
  lines.push('', ...model.smallPrint);
  if (model.unsubscribeUrl) lines.push('', `${format.t('email.unsubscribe')}:`, `  ${model.unsubscribeUrl}`);
  return `${lines.join('\n')}\n`;
}
