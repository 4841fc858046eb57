import type { Board, PiObjective, PiObjectiveGroup } from '../../planning-api/schemas';
import type { SummaryGridRow, SummarySection } from '../../table/table';
import {
  ATTENTION_COLUMNS,
  ATTENTION_LIMIT,
  bandFill,
  bandText,
  isCommitted,
  isTrackingState,
  percentOf,
  rowLink,
} from './vocabulary';

interface Tally {
  readonly label: string;
  committed: number;
  uncommitted: number;
  planned: number;
  actual: number;
}

const tally = (label: string): Tally => ({ label, committed: 0, uncommitted: 0, planned: 0, actual: 0 });

/**
 * The Summary's PI figures, fed while the PI objectives stream: committed vs uncommitted objectives,
 * planned vs actual business value and predictability (actual ÷ planned BV of the committed
 * objectives) per board and per team, with SAFe's 80-100 % band marked; and the committed
 * objectives without actual BV on boards whose PI is running.
 */
export class PiFigures {
  readonly #all = tally('All boards');
  readonly #boards = new Map<string, Tally>();
  readonly #teams = new Map<string, Tally>();
  readonly #noValue: { title: string; board: string; planned: number | null; row: number }[] = [];

  constructor(private readonly sheet: string) {}

  /** `row`: the objective's row in the PI objectives sheet (the header is row 1). */
  add(board: Board, group: PiObjectiveGroup, objective: PiObjective, row: number): void {
    const boardName = board.title ?? board.id;
    const b = this.#boards.get(board.id) ?? tally(boardName);
    this.#boards.set(board.id, b);
    const teamKey = `${board.id}\u0000${group.id}`;
    const t = this.#teams.get(teamKey) ?? tally(`${boardName} · ${group.title ?? group.id}`);
    this.#teams.set(teamKey, t);
    const committed = isCommitted(objective.type);
    for (const x of [this.#all, b, t]) {
      if (!committed) {
        x.uncommitted++;
        continue;
      }
      x.committed++;
      x.planned += objective.bvPlan ?? 0;
      x.actual += objective.bvActual ?? 0;
    }
    if (committed && !objective.bvActual && isTrackingState(typeof board.state === 'object' ? board.state?.title : board.state)) {
      this.#noValue.push({ title: objective.title ?? objective.id, board: boardName, planned: objective.bvPlan ?? null, row });
    }
  }

  sections(): SummarySection[] {
    const all = this.#all;
    const grid = (tallies: Iterable<Tally>, first: string) => ({
      columns: [
        { label: first },
        { label: 'Committed', type: 'integer' as const, brief: true },
        { label: 'Uncommitted', type: 'integer' as const, brief: true },
        { label: 'Planned BV', type: 'number' as const },
        { label: 'Actual BV', type: 'number' as const },
        { label: 'Predictability', type: 'percent' as const, bar: true },
        { label: '80–100 % band', brief: true },
      ],
      rows: [...tallies].map((x): SummaryGridRow => {
        const p = percentOf(x.actual, x.planned);
        return {
          values: [x.label, x.committed, x.uncommitted, x.planned, x.actual, p, bandText(p)],
          fills: [null, null, null, null, null, bandFill(p), bandFill(p)],
        };
      }),
    });
    const attention: SummaryGridRow[] = this.#noValue.slice(0, ATTENTION_LIMIT).map((o) => ({
      values: [
        'PI objective',
        rowLink(o.title, this.sheet, o.row),
        `Committed, no actual BV yet${o.planned === null ? '' : ` (planned ${o.planned})`} · ${o.board}`,
      ],
    }));
    if (this.#noValue.length > ATTENTION_LIMIT) {
      attention.push({ values: ['PI objective', null, `${this.#noValue.length - ATTENTION_LIMIT} more committed objectives without actual BV`] });
    }
    return [
      {
        heading: 'PI objectives',
        role: 'headline',
        lines: [
          { label: 'Committed objectives', value: all.committed, type: 'integer' },
          { label: 'Uncommitted objectives', value: all.uncommitted, type: 'integer' },
          { label: 'Planned BV (committed)', value: all.planned, type: 'number' },
          { label: 'Actual BV (committed)', value: all.actual, type: 'number' },
          { label: 'Predictability (actual ÷ planned BV)', value: percentOf(all.actual, all.planned), type: 'percent' },
        ],
      },
      { heading: 'Predictability by board', role: 'headline', lines: [], grid: grid(this.#boards.values(), 'Board') },
      { heading: 'Needs attention', role: 'attention', lines: [], grid: { columns: ATTENTION_COLUMNS, rows: attention } },
      { heading: 'Predictability by team', role: 'detail', lines: [], grid: grid(this.#teams.values(), 'Board · team') },
    ];
  }

  figures(): Record<string, unknown> {
    const figure = (x: Tally) => ({ ...x, predictability: percentOf(x.actual, x.planned) });
    return {
      piPredictability: {
        all: figure(this.#all),
        boards: Object.fromEntries([...this.#boards].map(([id, x]) => [id, figure(x)])),
      },
    };
  }
}
