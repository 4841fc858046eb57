import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { parseJsonBytes } from '../../core/text';
import type { Storage } from '../../storage/storage';
import { latestKey } from '../manifest/layout';
import { latestPointerSchema, manifestSchema } from '../manifest/manifest';
import { figuresFromManifest, type RunFigures } from './figures';

/** Runs a trend shows when the report definition does not say (this run included). */
export const DEFAULT_TREND_RUNS = 12;
/** Damaged runs skipped on top of the runs wanted before the walk gives up: the read stays bounded. */
const MAX_EXTRA_READS = 10;

export interface SkippedRun {
  /** The run's folder relative to the report, e.g. `dt=2026-11-09/run=r05`. */
  readonly run: string;
  readonly reason: string;
}

export interface TrendHistory {
  /** Earlier runs, oldest first. */
  readonly runs: readonly RunFigures[];
  readonly skipped: readonly SkippedRun[];
}

type ReadResult = { readonly figures: RunFigures; readonly previous: string | null | undefined } | { readonly skipped: string };

/**
 * Reads the figures of up to `runs - 1` earlier runs of a report, newest first, from their
 * manifests only (a few kB each; never a workbook or a table file).
 *
 * The walk follows the run chain (latest.json, then each manifest's `changes.previous`). Where the
 * chain breaks (a manifest missing, damaged or from before the chain existed) it goes on through
 * the dated run folders, older than the break, in key order (`dt=<date>/run=<id>`). A damaged or
 * missing run is skipped and named; at most `MAX_EXTRA_READS` such runs are read past the ones wanted.
 */
export async function readTrendHistory(options: {
  readonly storage: Storage;
  readonly report: string;
  /** Points on a trend, this run included. */
  readonly runs: number;
  readonly log: Log;
}): Promise<TrendHistory> {
  const { storage, report, log } = options;
  const wanted = Math.max(0, options.runs - 1);
  const found: RunFigures[] = [];
  const skipped: SkippedRun[] = [];
  const seen = new Set<string>();
  const budget = { reads: wanted + MAX_EXTRA_READS };
  const visit = async (key: string): Promise<string | null | undefined> => {
    seen.add(key);
    budget.reads--;
    const result = await readRun(storage, report, key, log);
    if ('skipped' in result) {
      skipped.push({ run: runName(report, key), reason: result.skipped });
      return undefined;
    }
    found.push(result.figures);
    return result.previous;
  };

  let key: string | null | undefined = wanted > 0 ? await latestManifestKey(storage, report, log) : null;
  let lastTried: string | undefined;
  while (typeof key === 'string' && found.length < wanted && budget.reads > 0 && !seen.has(key)) {
    lastTried = key;
    key = await visit(key);
  }
  // `null`: the first run of the chain, nothing before it. Otherwise the chain broke: the folders.
  if (key !== null && found.length < wanted && budget.reads > 0) {
    const older = (await runManifestKeys(storage, report, log)).filter((k) => !seen.has(k) && (lastTried === undefined || k < lastTried));
    for (const k of older) {
      if (found.length >= wanted || budget.reads <= 0) break;
      await visit(k);
    }
  }
  const runs = [...new Map(found.map((f) => [f.runId, f])).values()].sort((a, b) => a.generatedAt.localeCompare(b.generatedAt));
  return { runs, skipped };
}

async function latestManifestKey(storage: Storage, report: string, log: Log): Promise<string | undefined> {
  try {
    const bytes = await storage.getObject(latestKey(report));
    if (!bytes) return undefined;
    const pointer = latestPointerSchema.safeParse(parseJsonBytes(bytes));
    return pointer.success ? pointer.data.manifest : undefined;
  } catch (error) {
    log.warn('trends: could not read latest.json; reading the run folders instead', { error: errorMessage(error) });
    return undefined;
  }
}

/** Every run's manifest key under `<report>/dt=…/run=…/`, newest folder first. */
async function runManifestKeys(storage: Storage, report: string, log: Log): Promise<string[]> {
  try {
    const keys = await storage.listKeys(`${report}/dt=`);
    const runFolder = new RegExp(`^${escapeRegExp(report)}/dt=[^/]+/run=[^/]+/manifest\\.json$`);
    return keys.filter((k) => runFolder.test(k)).sort().reverse();
  } catch (error) {
    log.warn('trends: could not list the run folders', { error: errorMessage(error) });
    return [];
  }
}

async function readRun(storage: Storage, report: string, key: string, log: Log): Promise<ReadResult> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await storage.getObject(key);
  } catch (error) {
    log.warn('trends: could not read an earlier manifest; skipping that run', { manifest: key, error: errorMessage(error) });
    return { skipped: 'its manifest could not be read' };
  }
  if (!bytes) return { skipped: 'its manifest is missing' };
  const json = parseJsonBytes(bytes);
  if (json === undefined) return { skipped: 'its manifest is not valid JSON' };
  const manifest = manifestSchema.safeParse(json);
  if (!manifest.success) return { skipped: 'its manifest is not a valid manifest' };
  if (manifest.data.report !== report) return { skipped: `its manifest belongs to report "${manifest.data.report}"` };
  return { figures: figuresFromManifest(manifest.data), previous: manifest.data.changes ? manifest.data.changes.previous : undefined };
}

function runName(report: string, key: string): string {
  const inReport = key.startsWith(`${report}/`) ? key.slice(report.length + 1) : key;
  return inReport.replace(/\/manifest\.json$/, '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
