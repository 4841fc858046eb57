import type { Risk, RiskRegister } from '../../planning-api/schemas';
import type { SummaryGridRow, SummarySection } from '../../table/table';
import { isClosedRiskStatus, severityRank } from './vocabulary';
import type { Messages } from '../../core/i18n/messages';
import type { MessageId } from '../../core/i18n/messages';

/** SAFe's ROAM categories, in their order, the status titles that mean each, and the ROAM field's word for it. */
const ROAM: readonly { readonly label: MessageId; readonly pattern: RegExp; readonly field: RegExp }[] = [
  { label: 'term.roamResolved', pattern: /^(resolved|closed|done)$/i, field: /^resolved$/i },
  { label: 'term.roamOwned', pattern: /^(owned|in progress|assigned)$/i, field: /^owned$/i },
  { label: 'term.roamAccepted', pattern: /^accepted$/i, field: /^accepted$/i },
  { label: 'term.roamMitigated', pattern: /^mitigated$/i, field: /^mitigated$/i },
];
const OWNED = ROAM[1]!;

/** A register's ROAM field: a custom field titled ROAM (a single select of Resolved, Owned, Accepted, Mitigated). */
const ROAM_FIELD = /^roam$/i;

interface Axis {
  /** Severity ranks of the levels seen with this value (summed): the register's order, most severe first. */
  sum: number;
  n: number;
}

class RegisterMatrix {
  readonly impacts = new Map<string, Axis>();
  readonly probabilities = new Map<string, Axis>();
  readonly cells = new Map<string, { open: number; color: string | null }>();
  constructor(readonly name: string) {}
  signature(): string {
    return `${[...this.impacts.keys()].sort().join('\u0000')}\u0001${[...this.probabilities.keys()].sort().join('\u0000')}`;
  }
}

/**
 * The risk matrix as a heat map: open risks counted by impact (rows, most severe first) × probability
 * (columns, least likely first), each cell in the colour of the level the register's matrix gives it.
 * The API does not publish the matrix itself, so its order and colours are learnt from the risks: an
 * impact or probability that comes with more severe levels counts as higher, and a cell takes the colour of its risks' level
 * (closed risks included, so a cell that is empty now still shows its colour). And the risks by
 * ROAM category, from a ROAM field, or by status when the registers keep none (#roam).
 */
export class RiskHeatMap {
  readonly #registers = new Map<string, RegisterMatrix>();
  readonly #statuses = new Map<string, number>();
  /** Risks in an Owned status (In progress, Assigned) that have no owner: not Owned, whatever the status says. */
  #ownedNoOwner = 0;
  /** The ROAM field's values, by risk; null for a risk without one. Used when any risk has the field. */
  readonly #roamField: (string | null)[] = [];
  #hasRoamField = false;

  /**
   * `owner`: who owns a risk (its name), null when nobody does (risks.ts riskOwner); `text`: a custom
   * field's value as text (a single select's option), for the ROAM field.
   */
  constructor(
    /** The report's words, for the headings and the ROAM categories. */
    private readonly messages: Messages,
    private readonly owner: (risk: Risk) => string | null = () => null,
    private readonly text: (value: unknown) => string | null = (value) => (typeof value === 'string' ? value : null),
  ) {}

  add(register: RiskRegister, risk: Risk): void {
    const status = risk.status?.status ?? '';
    this.#statuses.set(status, (this.#statuses.get(status) ?? 0) + 1);
    if (OWNED.pattern.test(status.trim()) && this.owner(risk) === null) this.#ownedNoOwner++;
    const field = risk.customFields?.find((f) => ROAM_FIELD.test((f.title ?? '').trim()));
    if (field) this.#hasRoamField = true;
    this.#roamField.push(field ? (this.text(field.value)?.trim() ?? null) : null);
    const impact = risk.impact?.trim();
    const probability = risk.probability?.trim();
    if (!impact || !probability) return;
    const matrix = this.#registers.get(register.id) ?? new RegisterMatrix(register.key ?? register.title ?? register.id);
    this.#registers.set(register.id, matrix);
    const rank = Math.min(severityRank(risk.riskLevel?.title), 5);
    for (const [axis, value] of [[matrix.impacts, impact], [matrix.probabilities, probability]] as const) {
      const a = axis.get(value) ?? { sum: 0, n: 0 };
      a.sum += rank;
      a.n++;
      axis.set(value, a);
    }
    const key = `${impact}\u0000${probability}`;
    const cell = matrix.cells.get(key) ?? { open: 0, color: null };
    cell.color ??= risk.riskLevel?.color ?? null;
    if (!isClosedRiskStatus(status)) cell.open++;
    matrix.cells.set(key, cell);
  }

  /** One heat map per matrix: registers whose risks use the same impacts and probabilities share one. */
  sections(): SummarySection[] {
    const groups = new Map<string, RegisterMatrix[]>();
    for (const m of this.#registers.values()) groups.set(m.signature(), [...(groups.get(m.signature()) ?? []), m]);
    const several = groups.size > 1;
    return [...[...groups.values()].map((g) => heatMap(g, several, this.messages)), ...this.#roam()];
  }


  /**
   * ROAM where the registers keep it (a ROAM field), counted from the field; else, when every status
   * title is a ROAM word (or Open), the risks by status, named so: a status is not a ROAM decision,
   * and "Owned" counts only the risks someone owns (an In progress risk without one is said apart).
   */
  #roam(): SummarySection[] {
    if (this.#statuses.size === 0) return [];
    // A headline figure, right under the risks' own (their dataset's sections keep their order).
    if (this.#hasRoamField) return [this.#roamFromField()];
    const counts = new Map(ROAM.map((r) => [r.label, 0]));
    for (const [status, n] of this.#statuses) {
      if (/^open$/i.test(status)) continue;
      const category = ROAM.find((r) => r.pattern.test(status.trim()));
      if (!category) return [];
      counts.set(category.label, (counts.get(category.label) ?? 0) + n);
    }
    counts.set(OWNED.label, (counts.get(OWNED.label) ?? 0) - this.#ownedNoOwner);
    const open = [...this.#statuses].filter(([s]) => /^open$/i.test(s)).reduce((a, [, n]) => a + n, 0);
    return [{
      heading: this.messages.t('term.risksByStatus'),
      role: 'headline',
      lines: [
        ...ROAM.map((r) => ({ label: this.messages.t(r.label), value: counts.get(r.label) ?? 0, type: 'integer' as const })),
        { label: this.messages.t('term.ownedNoOwner'), value: this.#ownedNoOwner, type: 'integer' as const },
        { label: this.messages.t('term.notRoamed'), value: open, type: 'integer' as const },
      ],
    }];
  }

  #roamFromField(): SummarySection {
    const counts = new Map(ROAM.map((r) => [r.label, 0]));
    let none = 0;
    for (const value of this.#roamField) {
      const category = value === null ? undefined : ROAM.find((r) => r.field.test(value));
      if (category) counts.set(category.label, (counts.get(category.label) ?? 0) + 1);
      else none++;
    }
    return {
      heading: this.messages.t('term.risksByRoam'),
      role: 'headline',
      lines: [
        ...ROAM.map((r) => ({ label: this.messages.t(r.label), value: counts.get(r.label) ?? 0, type: 'integer' as const })),
        { label: this.messages.t('term.notRoamedField'), value: none, type: 'integer' as const },
      ],
    };
  }
}

function merged(group: readonly RegisterMatrix[], pick: (m: RegisterMatrix) => Map<string, Axis>): string[] {
  const all = new Map<string, Axis>();
  for (const m of group) {
    for (const [v, a] of pick(m)) {
      const x = all.get(v) ?? { sum: 0, n: 0 };
      x.sum += a.sum;
      x.n += a.n;
      all.set(v, x);
    }
  }
  return [...all].sort((a, b) => a[1].sum / a[1].n - b[1].sum / b[1].n || a[0].localeCompare(b[0])).map(([v]) => v);
}

function heatMap(group: readonly RegisterMatrix[], named: boolean, messages: Messages): SummarySection {
  const impacts = merged(group, (m) => m.impacts);
  // Impact from the most severe down; probability low → high left to right, as a risk matrix is read
  // (the most alarming cell top right).
  const probabilities = merged(group, (m) => m.probabilities).reverse();
  const cell = (impact: string, probability: string) => {
    const found = group.map((m) => m.cells.get(`${impact}\u0000${probability}`)).filter((c) => c !== undefined);
    return found.length === 0 ? undefined : { open: found.reduce((a, c) => a + c.open, 0), color: found.find((c) => c.color)?.color ?? null };
  };
  const rows: SummaryGridRow[] = impacts.map((impact) => {
    const cells = probabilities.map((p) => cell(impact, p));
    return { values: [impact, ...cells.map((c) => (c ? c.open : null))], fills: [null, ...cells.map((c) => c?.color ?? null)] };
  });
  return {
    heading: named ? messages.t('term.heatMapOf', { registers: group.map((m) => m.name).join(', ') }) : messages.t('term.heatMap'),
    role: 'detail',
    lines: [],
    grid: { columns: [{ label: messages.t('term.impactByProbability') }, ...probabilities.map((p) => ({ label: p, type: 'integer' as const }))], rows },
  };
}
