import type { ReportSummary, SummaryGridRow, SummaryRole, SummarySection } from '../../table/table';
import { term } from '../../core/glossary';

const ORDER: readonly SummaryRole[] = ['headline', 'attention', 'detail', 'about'];

/**
 * Orders the datasets' sections the way the Summary is read, top to bottom: headline figures, one
 * "Needs attention" table (every dataset's attention rows merged), detail, then the run's metadata.
 * Within a role, sections keep the datasets' order (risks, OKRs, PI objectives, board items).
 */
export function composeSummary(title: string, sections: readonly SummarySection[]): ReportSummary {
  const attention = sections.filter((s) => s.role === 'attention');
  const merged: SummarySection[] = [];
  if (attention.length > 0) {
    const rows: SummaryGridRow[] = attention.flatMap((s) => s.grid?.rows ?? []);
    const columns = attention.find((s) => s.grid)?.grid?.columns ?? [];
    merged.push({
      heading: term('needsAttention'),
      role: 'attention',
      lines: rows.length === 0 ? [{ label: term('nothingNeedsAttention'), value: null }] : [],
      ...(rows.length > 0 && { grid: { columns, rows } }),
    });
  }
  const others = sections.filter((s) => s.role !== 'attention');
  const ordered = ORDER.flatMap((role) =>
    role === 'attention' ? merged : others.filter((s) => (s.role ?? 'detail') === role),
  );
  return { title, sections: ordered };
}
