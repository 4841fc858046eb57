import type { TableDefinition, TableRow, TableSink } from '../../table/table';
import type { Manifest } from '../manifest';

/** The figures of one run that the trends show, read from its manifest. Absent figures are null. */
export interface RunFigures {
  readonly runId: string;
  readonly generatedAt: string;
  readonly risks: {
    readonly open: number;
    readonly highOrCritical: number;
    readonly overdue: number;
    readonly withoutOwner: number;
  } | null;
  /** Strategic theme key (or id) → progress in percent, with its title when the run recorded one. */
  readonly okrThemes: Readonly<Record<string, { readonly title: string; readonly progress: number | null }>>;
  /** Board (a PI board) id → predictability of the committed objectives in percent. */
  readonly predictability: Readonly<Record<string, { readonly title: string; readonly percent: number | null }>>;
  /** Predictability over every board of the run. */
  readonly predictabilityAll: number | null;
  /** Board id → its features: how many and how many done, and their estimates in total and done. */
  readonly features: Readonly<Record<string, FeatureTally>>;
  readonly changes: { readonly added: number; readonly removed: number; readonly changed: number } | null;
}

export interface FeatureTally {
  readonly title: string;
  readonly features: number;
  readonly done: number;
  readonly estimate: number;
  readonly estimateDone: number;
}

/** The key under which a run's manifest summary keeps its feature tallies. */
export const FEATURE_FIGURES_KEY = 'featureCompletion';

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** Theme titles by key, from what the run's selectors resolved to. */
function themeTitles(manifest: Pick<Manifest, 'selectors'>): Map<string, string> {
  const resolved = obj(obj(manifest.selectors.resolved)?.okrs)?.strategicThemes;
  const titles = new Map<string, string>();
  if (!Array.isArray(resolved)) return titles;
  for (const t of resolved as unknown[]) {
    const theme = obj(t);
    if (!theme) continue;
    const key = text(theme.key, text(theme.id, ''));
    if (key) titles.set(key, text(theme.title, key));
  }
  return titles;
}

/** Reads the figures a run stored in its manifest; what a run did not record stays empty. */
export function figuresFromManifest(manifest: Pick<Manifest, 'runId' | 'generatedAt' | 'summary' | 'selectors' | 'changes'>): RunFigures {
  const s = manifest.summary;
  const open = obj(s.openRisks);
  const risks = open
    ? { open: num(open.open) ?? 0, highOrCritical: num(open.highOrCritical) ?? 0, overdue: num(open.overdue) ?? 0, withoutOwner: num(open.withoutOwner) ?? 0 }
    : null;
  const titles = themeTitles(manifest);
  const progress = obj(obj(s.okr)?.themeProgress) ?? {};
  const okrThemes = Object.fromEntries(
    Object.entries(progress).map(([key, p]) => [key, { title: titles.get(key) ?? key, progress: num(p) }]),
  );
  const boards = obj(obj(s.piPredictability)?.boards) ?? {};
  const predictability = Object.fromEntries(
    Object.entries(boards).map(([id, b]) => [id, { title: text(obj(b)?.label, id), percent: num(obj(b)?.predictability) }]),
  );
  const tallies = obj(s[FEATURE_FIGURES_KEY]) ?? {};
  const features = Object.fromEntries(
    Object.entries(tallies).flatMap(([id, t]): [string, FeatureTally][] => {
      const x = obj(t);
      if (!x) return [];
      return [[id, {
        title: text(x.title, id), features: num(x.features) ?? 0, done: num(x.done) ?? 0,
        estimate: num(x.estimate) ?? 0, estimateDone: num(x.estimateDone) ?? 0,
      }]];
    }),
  );
  const counts = manifest.changes?.baseline ? manifest.changes.counts : null;
  return {
    runId: manifest.runId,
    generatedAt: manifest.generatedAt,
    risks,
    okrThemes,
    predictability,
    predictabilityAll: num(obj(obj(s.piPredictability)?.all)?.predictability),
    features,
    changes: counts ? { added: counts.added, removed: counts.removed, changed: counts.changed } : null,
  };
}

/**
 * Counts each board's features and their estimates, all and done (status category "Done"), while
 * the board items stream: the burn-up's figures, kept in the manifest so later runs read them
 * without opening this run's files. Stories are not counted: a feature's completion already says
 * how far its stories are.
 */
export class FeatureCompletion {
  readonly #boards = new Map<string, { title: string; features: number; done: number; estimate: number; estimateDone: number }>();

  /** A sink for the board-items table, or undefined for any other table. */
  sinkFor(table: TableDefinition): TableSink | undefined {
    if (table.name !== 'board-items') return undefined;
    const at = (key: string) => table.columns.findIndex((c) => c.key === key);
    const [board, title, kind, category, estimate] = ['board_id', 'board_title', 'kind', 'status_category', 'estimates'].map(at) as [number, number, number, number, number];
    if (board < 0 || kind < 0) return undefined;
    let rows = 0;
    return {
      writeRow: (row: TableRow) => {
        rows++;
        if (row.values[kind] !== 'feature') return;
        const id = text(row.values[board], '');
        const b = this.#boards.get(id) ?? { title: text(title < 0 ? undefined : row.values[title], id), features: 0, done: 0, estimate: 0, estimateDone: 0 };
        this.#boards.set(id, b);
        const points = num(estimate < 0 ? undefined : row.values[estimate]) ?? 0;
        const done = category >= 0 && row.values[category] === 'Done';
        b.features++;
        b.estimate += points;
        if (done) {
          b.done++;
          b.estimateDone += points;
        }
      },
      close: () => Promise.resolve(rows),
    };
  }

  /** For the manifest summary. */
  figures(): Record<string, unknown> {
    return this.#boards.size === 0 ? {} : { [FEATURE_FIGURES_KEY]: Object.fromEntries(this.#boards) };
  }
}
