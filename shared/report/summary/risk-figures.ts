import type { Risk, RiskRegister } from '../../planning-api/schemas';
import type { CellValue, SummaryGridRow, SummarySection } from '../../table/table';
import { attentionRows, attentionSection, type AttentionItem } from './attention';
import { statusCategoryText } from '../../core/format';
import { parseApiDate } from '../dataset/dates';
import {
  daysBetween,
  isClosedRiskStatus,
  isHighOrCritical,
  riskStatusRank,
  rowLink,
  severityRank,
} from './vocabulary';
import { planningLink } from './planning-links';
import type { Messages } from '../../core/i18n/messages';
import type { OwnWork } from './own-work';

interface Candidate {
  readonly key: string;
  readonly title: string;
  readonly level: string;
  readonly overdueDays: number | null;
  readonly due: Date | null;
  readonly register: string | null;
  readonly linked: readonly string[] | null;
  /** The owner's name (or id), null when the risk has none. */
  readonly owner: string | null;
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
   * `owner`: who owns a risk (its name, or null), and the title of the custom field it is read from
   * when the definition names one (`datasets.risks.ownerField`; default: the `responsible` field).
   */
  constructor(
    private readonly today: Date,
    private readonly sheet: string,
    private readonly owner: { readonly of: (risk: Risk) => string | null; readonly field?: string | undefined },
    /** The report's words (the reader format's). */
    private readonly messages: Messages,
    /** `links.riskUrl` of the definition: the risk's address in the planning tool. */
    private readonly linkTemplate?: string,
  ) {}

  /**
   * The responsible person is the "Owner" on every surface (the Risks sheet's column too); a custom
   * field the definition names instead keeps its own title beside the word: "Owner (Risk owner)".
   */
  get #ownerWords(): { line: string; why: string; who: string } {
    const named = this.owner.field === undefined ? '' : ` (${this.owner.field})`;
    return { line: `${this.messages.t('term.unownedRisks')}${named}`, why: `${this.messages.t('attention.noOwner')}${named}`, who: `${this.messages.t('term.owner')}${named}` };
  }

  /** `row`: the risk's row in its sheet (the header is row 1); `work`: the run's own-work join, told of each open risk. */
  add(register: RiskRegister, risk: Risk, row: number, work?: OwnWork): void {
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
    const owner = this.owner.of(risk);
    if (owner === null) this.#unowned++;
    const key = risk.key ?? `${register.key ?? ''} ${risk.id}`.trim();
    const web = planningLink(this.linkTemplate, { id: risk.id, key: risk.key ?? undefined, registerId: register.id });
    work?.risk({ key, item: rowLink(`${key} ${risk.title ?? ''}`.trim(), this.sheet, row, web), level, owner, linked: linkedRefs(risk) });
    if (severe && (overdueDays !== null || owner === null)) {
      this.#candidates.push({
        key, title: risk.title ?? '', level, overdueDays, due: due ?? null, register: register.key ?? register.title ?? null, linked: linkedKeys(risk), owner, row, web,
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
      heading: this.messages.t('term.risks'),
      role: 'headline',
      lines: [
        { label: this.messages.t('term.openRisks'), value: this.#open, type: 'integer' },
        { label: this.messages.t('term.severeRisks'), value: this.#openSevere, type: 'integer' },
        { label: this.messages.t('term.overdueRisks'), value: this.#overdue, type: 'integer' },
        { label: this.#ownerWords.line, value: this.#unowned, type: 'integer' },
        { label: this.messages.t('term.allRisks'), value: this.#total, type: 'integer' },
      ],
    };
  }

  /**
   * Every open high or critical risk that is overdue or unowned, most severe first; within a level,
   * overdue and unowned, then unowned, then overdue (most days first): a Critical risk nobody owns
   * is not pushed below the limit by owned ones that are late.
   */
  attentionItems(): AttentionItem[] {
    const urgency = (c: Candidate) => (c.owner === null ? (c.overdueDays !== null ? 0 : 1) : 2);
    const sorted = [...this.#candidates].sort(
      (a, b) =>
        severityRank(a.level) - severityRank(b.level) ||
        urgency(a) - urgency(b) ||
        (b.overdueDays ?? -1) - (a.overdueDays ?? -1) ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    return sorted.map((c) => ({
      kind: this.messages.t('attention.risk'),
      item: rowLink(`${c.key} ${c.title}`.trim(), this.sheet, c.row, c.web),
      why: [
        c.level,
        ...(c.overdueDays !== null ? [this.messages.t('attention.overdueDays', { days: c.overdueDays })] : []),
        // Whoever is to act, named: the owner, or that there is none.
        c.owner === null ? this.#ownerWords.why : this.messages.t('term.labelled', { label: this.#ownerWords.who, value: c.owner }),
      ].join(' · '),
      owner: c.owner,
      level: c.level,
      due: c.due,
      daysOverdue: c.overdueDays,
      where: c.register,
      linked: c.linked,
    }));
  }

  #attention(): SummarySection {
    return attentionSection(attentionRows(this.attentionItems(), (_kind, count) => this.messages.t('attention.moreRisks', { count })), this.messages);
  }

  /**
   * Levels × statuses, read left to right as sums: the open statuses, then their sum ("Open total",
   * the headline's open risks), then the closed statuses, then all risks. A reader adding up the
   * columns before "All risks" (Open total aside) gets it, and Mitigated is not read as open.
   */
  #matrix(): SummarySection {
    const byRank = (a: string, b: string) => riskStatusRank(a) - riskStatusRank(b);
    const open = [...this.#statuses].filter((s) => !isClosedRiskStatus(s)).sort(byRank);
    const closed = [...this.#statuses].filter((s) => isClosedRiskStatus(s)).sort(byRank);
    const levels = [...this.#levels.entries()].sort(([a], [b]) => severityRank(a) - severityRank(b));
    const sum = (statuses: readonly string[], count: (s: string) => number) => statuses.reduce((n, s) => n + count(s), 0);
    const rows: SummaryGridRow[] = levels.map(([level, entry]) => {
      const count = (s: string) => entry.byStatus.get(s) ?? 0;
      const values: CellValue[] = [level, ...open.map(count), sum(open, count), ...closed.map(count), entry.total];
      // The register's colour on the level and on every cell that holds a risk: the matrix reads like a heat map.
      const fill = (s: string) => (count(s) > 0 ? entry.color : null);
      return { values, fills: [entry.color, ...open.map(fill), null, ...closed.map(fill), null] };
    });
    const all = (s: string) => levels.reduce((n, [, e]) => n + (e.byStatus.get(s) ?? 0), 0);
    rows.push({ values: [this.messages.t('term.allLevels'), ...open.map(all), this.#open, ...closed.map(all), this.#total] });
    const status = (s: string) => ({ label: statusCategoryText(s), type: 'integer' as const });
    return {
      heading: this.messages.t('term.risksByLevelAndStatus'),
      role: 'detail',
      lines: [],
      grid: {
        columns: [
          { label: this.messages.t('term.level') },
          ...open.map(status),
          { label: this.messages.t('term.openTotal'), type: 'integer' },
          ...closed.map(status),
          { label: this.messages.t('term.allRisks'), type: 'integer' },
        ],
        rows,
      },
    };
  }
}

/** The keys (else ids) of the items a risk is linked to, as the Risks sheet's Linked items; null when none. */
function linkedKeys(risk: Risk): readonly string[] | null {
  const keys = (risk.linkedItems ?? []).flatMap((l) => (l.key ?? l.id ? [(l.key ?? l.id)!] : []));
  return keys.length > 0 ? keys : null;
}

/** Each item a risk is linked to by its key (else its id) and its id, as the own-work join matches them. */
function linkedRefs(risk: Risk): { key: string | null; id: string | null }[] {
  return (risk.linkedItems ?? []).map((l) => ({ key: l.key ?? l.id ?? null, id: l.id ?? null }));
}
