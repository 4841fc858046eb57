import { channelWords, type AttentionLine, type ChannelMessage, type MessageFigure, type MessageSection } from '../channels/channel';
import { changesSection } from '../email/changes-section';
import { headlineSentence } from '../email/email-content';
import { readerFormat, type ReaderFormat } from '../core/format';
import { cellText } from '../email/email-format';
import { changesSinceSentence, figureText } from '../email/figure-change';
import { isLink, isWebUrl, webUrlOf, type SummaryLine } from '../table/table';
import { changesDigest } from '../report/changes/digest';
import type { ReportDefinition } from '../report/definition/definition';
import type { ExportResult } from '../report/run/result';
import type { SummarySection } from '../table/table';
import { readableLocale, summaryIn } from './report-email';
import type { ChatLinks } from './message-links';
import type { OwedLine } from './alert-owed';
import type { RuleReading } from '../report/alerts/read-rules';
import { bannerSection, markedSummary } from './reader-news';

/**
 * The chat message of a run: the e-mail's headline figures, "Needs attention" and the changes
 * count, formatted by the same functions as the e-mail so every channel shows the same figures.
 * Without link keys (no link endpoint configured) the message has no buttons.
 */
export function buildChannelMessage(
  definition: ReportDefinition,
  result: ExportResult,
  options: {
    /** The message's buttons, signed once for every channel of the run (message-links.ts); none without link keys. */
    links?: ChatLinks | undefined;
    locale?: string | undefined;
    /** The lines crossed this channel is told of in this post (reader-news.ts): a banner first, the figures beyond their lines marked. */
    news?: { lines: readonly OwedLine[]; readings: readonly RuleReading[] } | undefined;
  } = {},
): ChannelMessage {
  // The channel's locale (default: the report's) and the run's zone, resolved once: every word, figure and date of the message is written by it.
  const locale = readableLocale(result, options.locale ?? definition.locale, definition.locale);
  const format = readerFormat(locale, definition.timeZone);
  const summary = options.news ? markedSummary(summaryIn(result, locale), options.news.readings, format) : summaryIn(result, locale);
  const banner = options.news && bannerSection(options.news.lines, options.news.readings, format);
  const sections = summary.sections;
  const counts = result.changes.counts;
  const total = counts.added + counts.removed + counts.changed + counts.scope;
  // The Summary's ranking of the changes (one ranking everywhere), cut shorter for chat: the counts, the
  // top CHAT_TOP_CHANGES, and what the cut left out (in the workbook's Changes sheet).
  const changes = changesSection(changesDigest(result.changes, format, CHAT_TOP_CHANGES), format);
  return {
    title: summary.title || (definition.title ?? definition.name),
    notification: headlineSentence(summary, format),
    generated: `${format.dateTime(new Date(result.manifest.generatedAt))} (${format.timeZone})`,
    runId: result.manifest.runId,
    changesSince: changesSinceSentence(sections, format),
    headline: [...(banner ? [banner] : []), ...sections.filter((s) => s.role === 'headline')].map((s) => headlineSection(s, format)),
    attention: sections.filter((s) => s.role === 'attention').flatMap((s) => attentionLines(s, format)),
    attentionMore: 0,
    changes: { heading: changes.heading, lines: changes.lines.map((line, i) => changeLine(line, i === 0, format)), total },
    workbookUrl: options.links?.workbookUrl,
    freshCopyUrl: options.links?.freshCopyUrl,
    words: channelWords(format.messages),
  };
}

function headlineSection(section: SummarySection, format: ReaderFormat): MessageSection {
  const figures: MessageFigure[] = section.lines.map((line) => ({
    label: line.label,
    value: figureText(line, format, false),
  }));
  const grid = section.grid;
  // A table whose rows are the headline (OKR progress per theme) keeps them; one under figures of its own is in the workbook.
  if (grid && figures.length === 0) {
    // As in the e-mail's text part: the first column names the row, the others follow labelled.
    const shown = grid.columns.map((c, i) => ({ c, i })).filter(({ c }) => !c.brief);
    const [first, ...rest] = shown;
    for (const row of grid.rows) {
      figures.push({
        label: first ? cellText(row.values[first.i], first.c.type, format, false) : '',
        value: rest.map(({ c, i }) => `${c.label} ${cellText(row.values[i], c.type, format, false)}`).join(', '),
      });
    }
  }
  return { heading: section.heading, figures };
}

/** "Risk R-12: no owner": what, which item, why, linked to the item where its address is known; "n more" rows come through as lines. */
function attentionLines(section: SummarySection, format: ReaderFormat): AttentionLine[] {
  return (section.grid?.rows ?? []).map((row) => {
    const [what, item, why] = row.values;
    const named = [what === null || what === undefined ? '' : cellText(what, 'text', format, false), item ? cellText(item, 'link', format, false) : ''].filter((p) => p !== '').join(' ');
    const reason = cellText(why, 'text', format, false);
    const web = isLink(item) ? item.web : undefined;
    return {
      // An "n more" row names no item: its reason is the line.
      text: item ? format.t('term.labelled', { label: named, value: reason }) : `${named} ${reason}`.trim(),
      ...(web !== undefined && isWebUrl(web) && { url: web }),
    };
  });
}

/** How many changes a chat message lists under their count (docs/delivery.md); the rest are in the workbook's Changes sheet. */
export const CHAT_TOP_CHANGES = 5;

/** A line of "What changed" (the counts first, unlabelled), linked to the changed item's tracker page when changes.csv has one. */
function changeLine(line: SummaryLine, first: boolean, format: ReaderFormat): AttentionLine {
  const web = line.link && webUrlOf(line.link);
  const value = cellText(line.value, line.type, format, false);
  return { text: first ? value : format.t('term.labelled', { label: line.label, value }), ...(web !== undefined && { url: web }) };
}
