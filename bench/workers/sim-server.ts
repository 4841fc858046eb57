/**
 * The planning API simulator in its own process, so its CPU (generating and serialising pages) and
 * memory are not counted against the client being measured. Controlled over IPC by bench/run.ts.
 */
import { serveRequests } from '../lib/child';
import { startSimulator, type SimulatorOptions } from '../../simulator/index';

/** Which requests an injected fault hits (functions cannot cross IPC). */
type MatchKind = 'any' | 'items' | 'risks';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const sim = await startSimulator(options);

const matchers: Record<MatchKind, ((req: { path: string }) => boolean) | undefined> = {
  any: undefined,
  items: (req) => req.path.endsWith('/items'),
  risks: (req) => req.path.endsWith('/risk'),
};

/** What the `stats` request answers. */
export interface SimStats {
  requests: number;
  faults: number;
  byOperation: Record<string, number>;
  /** The distinct `pageSize` values of items requests (the simulator honours any size: no cap is set). */
  itemsPageSizes: number[];
}

serveRequests(
  {
    clear: () => {
      sim.clearRequests();
      return null;
    },
    stats: (): SimStats => {
      const byOperation: Record<string, number> = {};
      const itemsPageSizes = new Set<number>();
      let faults = 0;
      for (const r of sim.requests) {
        const op = r.path.split('/').pop() ?? r.path;
        byOperation[op] = (byOperation[op] ?? 0) + 1;
        if (r.fault) faults++;
        const size = (r.body as { pageSize?: unknown } | undefined)?.pageSize;
        if (op === 'items' && typeof size === 'number') itemsPageSizes.add(size);
      }
      return { requests: sim.requests.length, faults, byOperation, itemsPageSizes: [...itemsPageSizes] };
    },
    inject: (msg) => {
      const match = matchers[(msg.match as MatchKind | undefined) ?? 'any'];
      sim.injectFault({
        status: msg.status as number | 'reset',
        times: (msg.times as number | undefined) ?? 1,
        ...(match && { match }),
      });
      return null;
    },
    latency: (msg) => {
      sim.setLatency(msg.ms as number);
      return null;
    },
  },
  () => sim.close(),
);

process.send?.({ type: 'ready', credentials: sim.credentials() });
