import { planningLink } from './planning-links';
import type { Board, PiObjective, PiObjectiveGroup } from '../../planning-api/schemas';
import type { SummaryGridRow, SummaryLine, SummarySection } from '../../table/table';
import type { PiPhase } from './pi-phase';
import { attentionRows, attentionSection, type AttentionItem } from './attention';
import {
  bandFill,
  FILLS,
  isCommitted,
  percentOf,
  PREDICTABILITY_BAND,
  rowLink,
} from './vocabulary';
import type { Messages } from '../../core/i18n/messages';
import type { OwnWork } from './own-work';

interface Tally {
  readonly label: string;
  committed: number;
  uncommitted: number;
  /** Planned BV of the committed objectives: the measure's denominator. */
  planned: number;
  /** Actual BV of all objectives, committed and uncommitted: the measure's numerator. */
  actual: number;
  /** Whether every PI the tally covers has reached its last sprint (business value is scored). */
  scored: boolean;
}

const tally = (label: string, scored: boolean): Tally => ({ label, committed: 0, uncommitted: 0, planned: 0, actual: 0, scored });

/**
 * The Summary's PI figures, fed while the PI objectives stream. Predictability is SAFe's ART
 * measure: actual BV of the committed and uncommitted objectives ÷ planned BV of the committed
 * objectives (uncommitted objectives raise it, so it can exceed 100 %), per board, per team and for
 * all boards. Each board's PI is named with its phase; the 80 % band and "no actual BV yet" are
 * judged only once the PI has reached its last sprint, when business owners score actual BV.
 * Per-team figures count only the groups that are teams of the board (not program objectives).
 */
export class PiFigures {
  readonly #all: Tally;
  readonly #boards = new Map<string, Tally>();
  readonly #teams = new Map<string, Tally>();
  readonly #phases = new Map<string, PiPhase>();
  readonly #teamNames = new Map<string, Set<string>>();
  readonly #noValue: { title: string; board: string; planned: number | null; row: number; web: string | undefined }[] = [];

  /** `linkTemplate`: `links.piObjectiveUrl` of the definition, the objective's address in the planning tool. */
  constructor(
    private readonly sheet: string,
    /** The report's words (the reader format's). */
    private readonly messages: Messages,
    private readonly linkTemplate?: string,
  ) {
    this.#all = tally(messages.t('term.allBoards'), true);
  }

  /** Before the board's objectives: its PI phase and the titles and labels of its teams. */
  board(board: Board, phase: PiPhase, teams: readonly string[]): void {
    this.#phases.set(board.id, phase);
    this.#teamNames.set(board.id, new Set(teams.map((t) => t.trim().toLowerCase())));
    this.#boards.set(board.id, tally(board.title ?? board.id, phase.scored));
    if (!phase.scored) this.#all.scored = false;
  }

  /**
   * `row`: the objective's row in the PI objectives sheet (the header is row 1); `work`: the run's
   * own-work join with the tracker keys and ids of the objective's items, told of each objective not done.
   */
  add(board: Board, group: PiObjectiveGroup, objective: PiObjective, row: number, work?: { readonly to: OwnWork; readonly itemKeys: readonly string[] }): void {
    const boardName = board.title ?? board.id;
    if (work && !/^done$/i.test(objective.status?.category ?? '')) {
      const web = planningLink(this.linkTemplate, { id: objective.id, boardId: board.id });
      work.to.objective({
        ref: `${board.id}\u0000${objective.id}`, item: rowLink(objective.title ?? objective.id, this.sheet, row, web), board: boardName,
        planned: objective.bvPlan ?? null, completion: objective.completion ?? null, itemKeys: work.itemKeys,
      });
    }
    const b = this.#boards.get(board.id) ?? tally(boardName, false);
    this.#boards.set(board.id, b);
    if (!this.#phases.has(board.id)) this.#all.scored = false;
    const tallies = [this.#all, b];
    if (this.#isTeam(board.id, group)) {
      const teamKey = `${board.id}\u0000${group.id}`;
      const t = this.#teams.get(teamKey) ?? tally(`${boardName} · ${group.title ?? group.id}`, b.scored);
      this.#teams.set(teamKey, t);
      tallies.push(t);
    }
    const committed = isCommitted(objective.type);
    for (const x of tallies) {
      if (committed) {
        x.committed++;
        x.planned += objective.bvPlan ?? 0;
      } else x.uncommitted++;
      x.actual += objective.bvActual ?? 0;
    }
    if (committed && !objective.bvActual && b.scored) {
      const web = planningLink(this.linkTemplate, { id: objective.id, boardId: board.id });
      this.#noValue.push({ title: objective.title ?? objective.id, board: boardName, planned: objective.bvPlan ?? null, row, web });
    }
  }

  #isTeam(boardId: string, group: PiObjectiveGroup): boolean {
    return this.#teamNames.get(boardId)?.has((group.title ?? '').trim().toLowerCase()) ?? false;
  }

  sections(): SummarySection[] {
    const all = this.#all;
    const sections: SummarySection[] = [
      {
        heading: this.messages.t('term.piObjectives'),
        role: 'headline',
        lines: [
          ...this.#phaseLines(),
          { label: this.messages.t('term.committedObjectives'), value: all.committed, type: 'integer' },
          { label: this.messages.t('term.uncommittedObjectives'), value: all.uncommitted, type: 'integer' },
          { label: this.messages.t('term.plannedBv'), value: all.planned, type: 'number' },
          { label: this.messages.t('term.actualBv'), value: all.actual, type: 'number' },
          // Before every PI is scored the figure is a running one: named so, and kept out of the one-line headline.
          all.scored
            ? { label: this.messages.t('term.predictability'), value: predictability(all), type: 'percent' }
            : { label: this.messages.t('term.predictabilitySoFar'), value: predictability(all), type: 'percent', provisional: true },
          { label: this.messages.t('term.predictabilityBand'), value: judgement(all, this.messages) },
        ],
      },
      { heading: this.messages.t('term.predictabilityByBoard'), role: 'headline', lines: overBandNote(this.#boards.values(), this.messages), grid: grid(this.#boards.values(), this.messages.t('term.board'), this.messages) },
      attentionSection(
        attentionRows(this.attentionItems(), (_kind, count) => this.messages.t('attention.moreObjectives', { count }), (item) =>
          item.kind === this.messages.t('attention.pi') ? [null, null, FILLS.warn] : undefined,
        ),
        this.messages,
      ),
    ];
    if (this.#teams.size > 0) {
      const teams = [...this.#teams.values()];
      sections.push({ heading: this.messages.t('term.predictabilityByTeam'), role: 'detail', lines: overBandNote(teams, this.messages), grid: grid(teams, this.messages.t('term.boardTeam'), this.messages) });
    }
    return sections;
  }

  /**
   * Each PI's phase, said once for the boards that share it: trains on one cadence read one line
   * ("PI: All boards"), boards on another get one line per phase naming them.
   */
  #phaseLines(): SummaryLine[] {
    const phases = [...this.#phases.values()];
    const byText = new Map<string, PiPhase[]>();
    for (const p of phases) byText.set(p.text, [...(byText.get(p.text) ?? []), p]);
    if (byText.size === 1 && phases.length > 1) return [{ label: this.messages.t('term.piPhase', { board: this.messages.t('term.allBoards') }), value: phases[0]!.text }];
    return [...byText].map(([text, same]) => ({ label: this.messages.t('term.piPhase', { board: same.map((p) => p.pi).join(', ') }), value: text }));
  }

  /** Boards scored below the band, then the committed objectives of scored PIs without actual BV, in the order read. */
  attentionItems(): AttentionItem[] {
    const item = (kind: string, what: AttentionItem['item'], why: string, where: string): AttentionItem => ({
      kind, item: what, why, owner: null, level: null, due: null, daysOverdue: null, where, linked: null,
    });
    return [
      ...[...this.#boards.values()]
        .filter((b) => b.scored && (predictability(b) ?? Infinity) < PREDICTABILITY_BAND.low)
        .map((b) => item(this.messages.t('attention.pi'), b.label, `${this.messages.t('term.predictability')} ${judgement(b, this.messages)}`, b.label)),
      ...this.#noValue.map((o) =>
        item(
          this.messages.t('attention.piObjective'),
          rowLink(o.title, this.sheet, o.row, o.web),
          `${o.planned === null ? this.messages.t('attention.noActualBv') : this.messages.t('attention.noActualBvPlanned', { planned: o.planned })} · ${o.board}`,
          o.board,
        ),
      ),
    ];
  }

  figures(): Record<string, unknown> {
    const figure = (x: Tally) => ({ ...x, predictability: predictability(x) });
    return {
      piPredictability: {
        all: figure(this.#all),
        boards: Object.fromEntries([...this.#boards].map(([id, x]) => [id, { ...figure(x), phase: this.#phases.get(id) ?? null }])),
      },
    };
  }
}

function predictability(x: Tally): number | null {
  return percentOf(x.actual, x.planned);
}

/** The note of a table with a value over 100 % (433.3 % reads as an error otherwise): where it comes from; none otherwise. */
function overBandNote(tallies: Iterable<Tally>, messages: Messages): SummaryLine[] {
  const over = [...tallies].some((x) => (predictability(x) ?? 0) > PREDICTABILITY_BAND.high);
  return over ? [{ label: messages.t('term.aboveBand'), value: messages.t('band.aboveNote') }] : [];
}

/** The band in words, in the report's language ('in band', 'below 80 %', 'scored at the end of the PI'). */
function judgement(x: Tally, messages: Messages): string {
  if (!x.scored) return messages.t('band.notScored');
  const p = predictability(x);
  return p === null ? messages.t('band.noPlannedBv') : p < PREDICTABILITY_BAND.low ? messages.t('band.below') : p > PREDICTABILITY_BAND.high ? messages.t('band.above') : messages.t('band.in');
}

/**
 * A table of tallies. The band column is left out while no PI in it has been scored: every row would
 * say "scored at the end of the PI", which the headline's band line says once.
 */
function grid(tallies: Iterable<Tally>, first: string, messages: Messages) {
  const all = [...tallies];
  const band = all.some((x) => x.scored);
  return {
    columns: [
      { label: first },
      { label: messages.t('term.committedObjectives'), type: 'integer' as const, brief: true },
      { label: messages.t('term.uncommittedObjectives'), type: 'integer' as const, brief: true },
      { label: messages.t('term.plannedBv'), type: 'number' as const },
      { label: messages.t('term.actualBv'), type: 'number' as const },
      // While no PI in the table is scored, every figure is a running one: the header says so once.
      { label: messages.t(band ? 'term.predictability' : 'term.predictabilitySoFar'), type: 'percent' as const, bar: true },
      // Not brief: the e-mail shows the band in words beside its colour.
      ...(band ? [{ label: messages.t('term.predictabilityBand') }] : []),
    ],
    rows: all.map((x): SummaryGridRow => {
      const p = predictability(x);
      const fill = x.scored ? bandFill(p) : null;
      const values = [x.label, x.committed, x.uncommitted, x.planned, x.actual, p];
      const fills = [null, null, null, null, null, fill];
      // Beside scored boards, one still in its PI reads "so far (PI in progress)".
      const said = x.scored ? judgement(x, messages) : messages.t('band.soFar');
      return band ? { values: [...values, said], fills: [...fills, fill] } : { values, fills };
    }),
  };
}
