import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Storage } from '../../storage/storage';
import { figuresFromManifest, type FiguresOf } from './figures';
import { readTrendHistory, type TrendHistory } from './history';
import { buildTrends, type Trends } from './series';

export type CurrentRun = FiguresOf;

/**
 * Starts reading the history of a report while the run exports (it reads only manifests), and
 * builds the trends once the run's own figures are known. A history that cannot be read at all
 * leaves the trends with this run alone and says so; it never fails the export.
 */
export function startTrends(options: { readonly storage: Storage; readonly report: string; readonly runs: number; readonly log: Log }): {
  finish(current: CurrentRun, timeZone: string, locale: string): Promise<Trends>;
} {
  const history: Promise<TrendHistory> = readTrendHistory(options).catch((error: unknown) => {
    options.log.warn('trends: the history could not be read; showing this run only', { error: errorMessage(error) });
    return { runs: [], skipped: [{ run: 'earlier runs', reason: 'the run folders could not be read' }] };
  });
  return {
    async finish(current, timeZone, locale) {
      const earlier = await history;
      const figures = figuresFromManifest(current);
      return buildTrends([...earlier.runs.filter((r) => r.runId !== current.runId), figures], earlier.skipped, timeZone, locale);
    },
  };
}
