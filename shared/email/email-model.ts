import type { ReaderFormat } from '../core/format';
import type { SummarySection } from '../table/table';
import type { EmailTrends } from './trends-section';

/**
 * What the report e-mail is made of, apart from how it is written: the content (email-content.ts),
 * its HTML (email-html.ts) and its cells' text (email-format.ts) all read these types, and none of
 * them needs the others for it.
 */

export interface ReportEmailLink {
  /** e.g. "Workbook" or "Risks": what the file holds, for people. */
  readonly label: string;
  readonly url: string;
  readonly bytes: number;
  /** Its format in a word, beside its size: "Excel", "CSV". */
  readonly kind: string;
  /** The file the e-mail's button opens (the workbook); the others are listed after it. */
  readonly primary?: boolean;
}

/** What the e-mail shows, in order, shared by the HTML and text parts so they say the same. */
export interface EmailModel {
  readonly title: string;
  readonly generated: string;
  readonly sections: readonly SummarySection[];
  /** How many of `sections` lead, before the report's own: the reader's lines crossed and what they own. */
  readonly leading?: number | undefined;
  readonly workbook: ReportEmailLink | undefined;
  readonly otherFiles: readonly ReportEmailLink[];
  /** "Get a fresh copy now": runs the report again and opens the new workbook. */
  readonly freshCopyUrl: string | undefined;
  readonly smallPrint: readonly string[];
  readonly format: ReaderFormat;
  readonly trends?: EmailTrends | undefined;
  /** The inbox list's preview line: the headline figures and what needs attention, in one sentence. */
  readonly preheader: string;
  readonly unsubscribeUrl: string | undefined;
}
