import { SUMMARY_ROLES, type ReportSummary, type SummaryGridRow, type SummarySection } from '../../table/table';
import { linkMoreRows } from './attention';
import { sheetNames } from '../sheet-names';
import { messagesFor, type Messages } from '../../core/i18n/messages';

/** Sections in the order of their roles (SUMMARY_ROLES), each role's sections in the order given. */
export function inRoleOrder(sections: readonly SummarySection[]): SummarySection[] {
  return SUMMARY_ROLES.flatMap((role) => sections.filter((s) => (s.role ?? 'detail') === role));
}

/**
 * Orders the datasets' sections the way the Summary is read, top to bottom: headline figures (risks,
 * OKR progress, PI predictability), one "Needs attention" table (every dataset's attention rows
 * merged), what changed (added by the run once compared, digest.ts), detail, then the run's metadata.
 * Within a role, sections keep the datasets' order (risks, OKRs, PI objectives, board items).
 */
export function composeSummary(title: string, sections: readonly SummarySection[], messages: Messages = messagesFor('en')): ReportSummary {
  const attention = sections.filter((s) => s.role === 'attention');
  const merged: SummarySection[] = [];
  if (attention.length > 0) {
    // Each "n more" row leads to the rest of its kind in the "Needs attention" sheet, which lists every item in this order.
    const rows: SummaryGridRow[] = linkMoreRows(attention.flatMap((s) => s.grid?.rows ?? []), sheetNames(messages).attention);
    const columns = attention.find((s) => s.grid)?.grid?.columns ?? [];
    merged.push({
      heading: messages.t('term.needsAttention'),
      role: 'attention',
      lines: rows.length === 0 ? [{ label: messages.t('term.nothingNeedsAttention'), value: null }] : [],
      ...(rows.length > 0 && { grid: { columns, rows } }),
    });
  }
  return { title, sections: inRoleOrder([...sections.filter((s) => s.role !== 'attention'), ...merged]) };
}
