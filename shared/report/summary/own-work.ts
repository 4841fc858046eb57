import type { CellValue } from '../../table/table';

/**
 * Each person's own work (issue 50, item 7), gathered while the tables the run already fetches go
 * by (risks, PI objectives, OKRs; nothing is asked twice) and joined per person afterwards: the risks
 * they own, the PI objectives those risks put at risk (risk → its linked items → the PI objective
 * items with the same tracker key or id → their objectives) with the planned business value riding
 * on them, and the OKRs under the themes they own that are behind. Narrow types only: this layer
 * knows neither the definition nor the messages.
 */

/** An open risk as the join reads it: its owner by name, the items it is linked to. */
export interface WorkRisk {
  readonly key: string;
  /** `key title`, linked to its row and the tracker (rowLink). */
  readonly item: CellValue;
  readonly level: string;
  /** Its owner's name (or id), null when nobody owns it. */
  readonly owner: string | null;
  /** Each linked item's key, else its id; and its id. */
  readonly linked: readonly { readonly key: string | null; readonly id: string | null }[];
}

/** A PI objective not done yet, with the tracker keys and ids of every item and sub-item linked to it. */
export interface WorkObjective {
  /** Board and objective id: an objective's id is its board's. */
  readonly ref: string;
  readonly item: CellValue;
  readonly board: string;
  readonly planned: number | null;
  readonly completion: number | null;
  readonly itemKeys: readonly string[];
}

/** An OKR objective that is behind (off track or at risk), with its theme's owners by name. */
export interface WorkOkr {
  readonly item: CellValue;
  readonly theme: string;
  readonly owners: readonly string[];
  readonly health: 'off-track' | 'at-risk';
  readonly completion: number | null;
}

/** What the run gathered for everyone; per person it is `personWork`. */
export interface OwnWorkFacts {
  readonly risks: readonly WorkRisk[];
  readonly objectives: readonly WorkObjective[];
  readonly okrs: readonly WorkOkr[];
}

/** Fed by the datasets of one run (DatasetContext.ownWork), like the people directory. */
export class OwnWork {
  readonly #risks: WorkRisk[] = [];
  readonly #objectives: WorkObjective[] = [];
  readonly #okrs: WorkOkr[] = [];

  risk(risk: WorkRisk): void {
    this.#risks.push(risk);
  }

  objective(objective: WorkObjective): void {
    this.#objectives.push(objective);
  }

  okr(okr: WorkOkr): void {
    this.#okrs.push(okr);
  }

  facts(): OwnWorkFacts {
    return { risks: [...this.#risks], objectives: [...this.#objectives], okrs: [...this.#okrs] };
  }
}

/** One of a person's risks and the PI objectives it puts at risk, with their planned BV summed. */
export interface RiskAtStake {
  readonly risk: WorkRisk;
  readonly objectives: readonly WorkObjective[];
  readonly value: number;
}

/** One person's own work. */
export interface PersonWork {
  /** Their open risks linked to a PI objective not done, most business value first. */
  readonly risks: readonly RiskAtStake[];
  /** The PI objectives those risks put at risk, each once, most planned BV first. */
  readonly objectives: readonly WorkObjective[];
  /** The planned BV of those objectives, each counted once (two risks on one objective do not double it). */
  readonly value: number;
  readonly okrs: readonly WorkOkr[];
}

const plannedOf = (objectives: readonly WorkObjective[]) => objectives.reduce((sum, o) => sum + (o.planned ?? 0), 0);

/** The join for the person `isThem` recognises by an owner's name (or id). */
export function personWork(facts: OwnWorkFacts, isThem: (owner: string) => boolean): PersonWork {
  const byItem = new Map<string, WorkObjective[]>();
  for (const objective of facts.objectives) {
    for (const key of new Set(objective.itemKeys)) byItem.set(key, [...(byItem.get(key) ?? []), objective]);
  }
  const risks = facts.risks
    .filter((r) => r.owner !== null && isThem(r.owner))
    .map((risk): RiskAtStake => {
      const reached = new Set(risk.linked.flatMap((l) => [l.key, l.id]).flatMap((k) => (k === null ? [] : (byItem.get(k) ?? []))));
      const objectives = [...reached];
      return { risk, objectives, value: plannedOf(objectives) };
    })
    .filter((r) => r.objectives.length > 0)
    .sort((a, b) => b.value - a.value);
  const objectives = [...new Set(risks.flatMap((r) => r.objectives))].sort((a, b) => (b.planned ?? 0) - (a.planned ?? 0));
  const okrs = facts.okrs.filter((o) => o.owners.some(isThem));
  return { risks, objectives, value: plannedOf(objectives), okrs };
}
