import type { Risk, RiskRegister } from '../../planning-api/schemas';
import type { CellValue, SummaryGridRow, SummarySection } from '../../table/table';
import { statusCategoryText } from '../../core/format';
import { parseApiDate } from '../dates';
import {
  ATTENTION_COLUMNS,
  ATTENTION_LIMIT,
  daysBetween,
  isClosedRiskStatus,
  isHighOrCritical,
  riskStatusRank,
  rowLink,
  severityRank,
} from './vocabulary';
import { planningLink } from './planning-links';

interface Candidate {
  readonly key: string;
  readonly title: string;
  readonly level: string;
  readonly overdueDays: number | null;
  readonly unowned: boolean;
  readonly row: number;
  readonly web: string | undefined;
}

/**
 * The Summary's risk figures, fed one risk at a time while the risks stream into their sheet (no
 * second pass over the data): open risks (every status that is not closed or mitigated), how many
 * are high or critical, overdue or without an owner (the `responsible` field, or a custom field
 * the definition names); a level × status matrix; and the open high/critical risks that are overdue or unowned.
 */
export class RiskFigures {
  #total = 0;
  #open = 0;
  #openSevere = 0;
  #overdue = 0;
  #unowned = 0;
  readonly #levels = new Map<string, { color: string | null; byStatus: Map<string, number>; total: number }>();
  readonly #statuses = new Set<string>();
  readonly #candidates: Candidate[] = [];

  /**
   * `today`: the run's calendar day at 00:00 UTC; `sheet`: the risks sheet name, for row links;
   * `ownerField`: the title of a custom field that holds the owner (default: the `responsible` field).
   */
  constructor(
    private readonly today: Date,
    private readonly sheet: string,
    private readonly ownerField?: string,
    /** `links.riskUrl` of the definition: the risk's address in the planning tool. */
    private readonly linkTemplate?: string,
  ) {}

  #hasOwner(risk: Risk): boolean {
    if (this.ownerField === undefined) return !!(risk.responsible?.user || risk.responsible?.id);
    const wanted = this.ownerField.toLowerCase();
    const field = risk.customFields?.find((f) => (f.title ?? '').toLowerCase() === wanted);
    const value: unknown = field?.value;
    return value !== null && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);
  }

  /** The owner figure is named after the field it counts. */
  get #ownerWords(): { line: string; why: string } {
    return this.ownerField === undefined
      ? { line: 'Without a responsible person', why: 'no responsible person' }
      : { line: `Without a ${this.ownerField}`, why: `no ${this.ownerField}` };
  }

  /** `row`: the risk's row in its sheet (the header is row 1). */
  add(register: RiskRegister, risk: Risk, row: number): void {
    this.#total++;
    const level = risk.riskLevel?.title ?? '(no level)';
    const status = risk.status?.status ?? '(no status)';
    this.#statuses.add(status);
    const entry = this.#levels.get(level) ?? { color: risk.riskLevel?.color ?? null, byStatus: new Map(), total: 0 };
    entry.byStatus.set(status, (entry.byStatus.get(status) ?? 0) + 1);
    entry.total++;
    this.#levels.set(level, entry);

    if (isClosedRiskStatus(status)) return;
    this.#open++;
    const severe = isHighOrCritical(level);
    if (severe) this.#openSevere++;
    const due = parseApiDate(risk.resolutionDate);
    const overdueDays = due && due < this.today ? daysBetween(due, this.today) : null;
    if (overdueDays !== null) this.#overdue++;
    const unowned = !this.#hasOwner(risk);
    if (unowned) this.#unowned++;
    if (severe && (overdueDays !== null || unowned)) {
      this.#candidates.push({
        key: risk.key ?? `${register.key ?? ''} ${risk.id}`.trim(),
        title: risk.title ?? '',
        level,
        overdueDays,
        unowned,
        row,
        web: planningLink(this.linkTemplate, { id: risk.id, key: risk.key ?? undefined, registerId: register.id }),
      });
    }
  }

  sections(): SummarySection[] {
    return [this.#headline(), this.#attention(), this.#matrix()];
  }

  figures(): Record<string, unknown> {
    return {
      risks: this.#total,
      risksByLevel: Object.fromEntries([...this.#levels].map(([k, v]) => [k, { count: v.total, color: v.color }])),
      openRisks: { open: this.#open, highOrCritical: this.#openSevere, overdue: this.#overdue, withoutOwner: this.#unowned },
    };
  }

  #headline(): SummarySection {
    return {
      heading: 'Risks',
      role: 'headline',
      lines: [
        { label: 'Open risks', value: this.#open, type: 'integer' },
        { label: 'Open and high or critical', value: this.#openSevere, type: 'integer' },
        { label: 'Overdue (resolution date passed)', value: this.#overdue, type: 'integer' },
        { label: this.#ownerWords.line, value: this.#unowned, type: 'integer' },
        { label: 'All risks, closed included', value: this.#total, type: 'integer' },
      ],
    };
  }

  #attention(): SummarySection {
    const sorted = [...this.#candidates].sort(
      (a, b) =>
        severityRank(a.level) - severityRank(b.level) ||
        (b.overdueDays ?? -1) - (a.overdueDays ?? -1) ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    const rows: SummaryGridRow[] = sorted.slice(0, ATTENTION_LIMIT).map((c) => {
      const why = [
        c.level,
        ...(c.overdueDays !== null ? [`overdue ${c.overdueDays} day${c.overdueDays === 1 ? '' : 's'}`] : []),
        ...(c.unowned ? [this.#ownerWords.why] : []),
      ].join(' · ');
      return { values: ['Risk', rowLink(`${c.key} ${c.title}`.trim(), this.sheet, c.row, c.web), why] };
    });
    if (sorted.length > ATTENTION_LIMIT) {
      rows.push({ values: ['Risk', null, `${sorted.length - ATTENTION_LIMIT} more open high/critical risks overdue or unowned`] });
    }
    return { heading: 'Needs attention', role: 'attention', lines: [], grid: { columns: ATTENTION_COLUMNS, rows } };
  }

  #matrix(): SummarySection {
    const statuses = [...this.#statuses].sort((a, b) => riskStatusRank(a) - riskStatusRank(b));
    const levels = [...this.#levels.entries()].sort(([a], [b]) => severityRank(a) - severityRank(b));
    // "Open" in the headline is every status that is not closed: the matrix shows that total too.
    const openStatuses = statuses.filter((s) => !isClosedRiskStatus(s));
    const openOf = (byStatus: (s: string) => number) => openStatuses.reduce((n, s) => n + byStatus(s), 0);
    const rows: SummaryGridRow[] = levels.map(([level, entry]) => {
      const counts = statuses.map((s) => entry.byStatus.get(s) ?? 0);
      const values: CellValue[] = [level, ...counts, openOf((s) => entry.byStatus.get(s) ?? 0), entry.total];
      // The register's colour on the level and on every cell that holds a risk: the matrix reads like a heat map.
      const fills = [entry.color, ...counts.map((n) => (n > 0 ? entry.color : null)), null, null];
      return { values, fills };
    });
    const totals = statuses.map((s) => levels.reduce((sum, [, e]) => sum + (e.byStatus.get(s) ?? 0), 0));
    rows.push({ values: ['All levels', ...totals, this.#open, this.#total] });
    return {
      heading: 'Risks by level and status',
      role: 'detail',
      lines: [],
      grid: {
        columns: [
          { label: 'Level' },
          ...statuses.map((s) => ({ label: statusCategoryText(s), type: 'integer' as const })),
          { label: 'Open (not closed)', type: 'integer' },
          { label: 'Total', type: 'integer' },
        ],
        rows,
      },
    };
  }
}
