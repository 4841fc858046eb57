import { systemClock } from '../../../../shared/core/clock';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { csvObjects, readCsv } from '../../../support/read-output';

const DEFINITION = parseReportDefinition({
  name: 'prefetch',
  datasets: { risks: {}, okrs: {}, boardItems: {} },
});

/**
 * Board items are the largest dataset and are written last; they start fetching with the run,
 * within their read-ahead, instead of after risks and OKRs are written.
 */
describe('board items fetched ahead of their turn', () => {
  let sim: RunningSimulator;
  let root: string;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', latencyMs: 5 });
    root = await mkdtemp(join(tmpdir(), 'prefetch-'));
  });
  afterAll(async () => {
    await sim?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('asks for board items while the OKRs are still being read, and writes them in the same order with the same requests', async () => {
    const result = await runOf(DEFINITION).in(root).against(sim).at(systemClock).withRunId('r1').export();
    const log = sim.requests.map((r) => `${r.address} ${r.path}`);
    const firstItems = log.findIndex((l) => l.startsWith('legacy') && l.endsWith('/items'));
    const lastV1 = log.findLastIndex((l) => l.startsWith('v1'));
    expect(firstItems).toBeGreaterThanOrEqual(0);
    expect(firstItems, log.join('\n')).toBeLessThan(lastV1);
    // Board after board, features in the board's order, whatever the fetch order.
    const rows = csvObjects(await readCsv(join(root, result.runFolder, 'board-items.csv')));
    const boards = sim.tenant.boards.map((b) => b.id);
    const seen = rows.map((r) => boards.indexOf(r.board_id!));
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const features = rows.filter((r) => r.kind === 'feature' && r.board_id === boards[0]).map((r) => r.id);
    expect(features).toEqual(sim.tenant.boardItems(boards[0]!).map((i) => i.id));
  });
});
