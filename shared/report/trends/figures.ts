import type { TableDefinition, TableRow, TableSink } from '../../table/table';
import type { Manifest } from '../manifest/manifest';
import type { ManifestFigures } from '../manifest/manifest-summary';

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
export const FEATURE_FIGURES_KEY = 'featureCompletion' satisfies keyof ManifestFigures;

/** A run as the trends read it: its manifest, or the run in progress with the figures it gathered. */
export type FiguresOf = Pick<Manifest, 'runId' | 'generatedAt' | 'selectors' | 'changes'> & { readonly summary: ManifestFigures };

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** Theme titles by key, from what the run's selectors resolved to (a dataset's own record, not typed by the manifest). */
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
export function figuresFromManifest(manifest: FiguresOf): RunFigures {
  const s = manifest.summary;
  const open = s.openRisks;
  const risks = open ? { open: open.open, highOrCritical: open.highOrCritical, overdue: open.overdue, withoutOwner: open.withoutOwner } : null;
  const titles = themeTitles(manifest);
  const okrThemes = Object.fromEntries(
    Object.entries(s.okr?.themeProgress ?? {}).map(([key, progress]) => [key, { title: titles.get(key) ?? key, progress }]),
  );
  const predictability = Object.fromEntries(
    Object.entries(s.piPredictability?.boards ?? {}).map(([id, b]) => [id, { title: text(b.label, id), percent: b.predictability }]),
  );
  const features = Object.fromEntries(
    Object.entries(s[FEATURE_FIGURES_KEY] ?? {}).map(([id, t]): [string, FeatureTally] => [id, {
      title: text(t.title, id), features: t.features, done: t.done, estimate: t.estimate, estimateDone: t.estimateDone,
    }]),
  );
  const counts = manifest.changes?.baseline ? manifest.changes.counts : null;
  return {
    runId: manifest.runId,
    generatedAt: manifest.generatedAt,
    risks,
    okrThemes,
    predictability,
    predictabilityAll: s.piPredictability?.all.predictability ?? null,
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
  figures(): Pick<ManifestFigures, typeof FEATURE_FIGURES_KEY> {
    return this.#boards.size === 0 ? {} : { [FEATURE_FIGURES_KEY]: Object.fromEntries(this.#boards) };
  }
}
