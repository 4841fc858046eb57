import type { Risk, RiskRegister } from '../../planning-api/schemas';
import type { SummaryGridRow, SummarySection } from '../../table/table';
import { isClosedRiskStatus, severityRank } from './vocabulary';
import type { Messages } from '../../core/i18n/messages';
import type { MessageId } from '../../core/i18n/messages';

/** SAFe's ROAM categories, in their order, and the status titles that mean each. */
const ROAM: readonly { readonly label: MessageId; readonly pattern: RegExp }[] = [
  { label: 'term.roamResolved', pattern: /^(resolved|closed|done)$/i },
  { label: 'term.roamOwned', pattern: /^(owned|in progress|assigned)$/i },
  { label: 'term.roamAccepted', pattern: /^accepted$/i },
  { label: 'term.roamMitigated', pattern: /^mitigated$/i },
];

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
 * (closed risks included, so a cell that is empty now still shows its colour). And, when every
 * status title is one of SAFe's ROAM words (or Open), the risks by ROAM category.
 */
export class RiskHeatMap {
  readonly #registers = new Map<string, RegisterMatrix>();
  readonly #statuses = new Map<string, number>();

  /** `messages`: the report's words, for the headings and the ROAM categories. */
  constructor(private readonly messages: Messages) {}

  add(register: RiskRegister, risk: Risk): void {
    const status = risk.status?.status ?? '';
    this.#statuses.set(status, (this.#statuses.get(status) ?? 0) + 1);
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


  #roam(): SummarySection[] {
    const counts = new Map(ROAM.map((r) => [r.label, 0]));
    for (const [status, n] of this.#statuses) {
      if (/^open$/i.test(status)) continue;
      const category = ROAM.find((r) => r.pattern.test(status.trim()));
      if (!category) return [];
      counts.set(category.label, (counts.get(category.label) ?? 0) + n);
    }
    if (this.#statuses.size === 0) return [];
    const open = [...this.#statuses].filter(([s]) => /^open$/i.test(s)).reduce((a, [, n]) => a + n, 0);
    // A headline figure, right under the risks' own (their dataset's sections keep their order).
    return [{
      heading: this.messages.t('term.risksByRoam'),
      role: 'headline',
      lines: [
        ...ROAM.map((r) => ({ label: this.messages.t(r.label), value: counts.get(r.label) ?? 0, type: 'integer' as const })),
        { label: this.messages.t('term.notRoamed'), value: open, type: 'integer' as const },
      ],
    }];
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
