import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { listRequests } from '../../../support/list-calls';

/**
 * The plan of a run (shared/report/run/export-plan.ts) reads each list once, and the datasets made from
 * it read none: a run asks the list endpoints no more than its plan did, and the manifest records
 * what the selectors resolved to as before.
 */
describe('the plan of a run', () => {
  let sim: RunningSimulator;
  let root: string;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'export-plan-'));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), rm(root, { recursive: true, force: true })]);
  });

  it('asks each list once however many datasets read it, and the datasets ask none', async () => {
    const [collection] = sim.tenant.collections;
    const definition = parseReportDefinition({
      name: 'lists-once',
      datasets: {
        risks: { registers: ['OPS'] },
        okrs: { strategicThemes: [sim.tenant.strategicThemes[1]!.title] },
        // Both datasets of boards read the same lists: every board, the collections, the boards of one collection.
        piObjectives: { collections: [collection!.title] },
        boardItems: { collections: [collection!.id], boards: ['Data & AI ART'] },
      },
      formats: ['csv'],
    });
    sim.clearRequests();
    const result = await runOf(definition).in(root).against(sim).at('2026-11-23T06:00:00Z').withRunId('once').export();
    const portfolios = sim.tenant.portfolioThemes.map((p) => `GET /api/v1/portfolio-themes/${p.id}/strategic-themes`);
    expect(listRequests(sim.requests).sort()).toEqual(
      ['GET /api/v1/riskregister', 'GET /api/v1/portfolio-themes', 'GET /api/v1/strategic-themes', ...portfolios, 'GET /api/acme/collections', 'GET /api/acme/boards', 'GET /api/acme/boards'].sort(),
    );
    expect(sim.requests.filter((r) => r.path.endsWith('/boards')).map((r) => r.query)).toEqual(
      expect.arrayContaining([{}, { collectionIds: collection!.id, collectionId: collection!.id }]),
    );

    const boards = sim.tenant.boards.map((b) => ({ id: b.id, title: b.title }));
    const inCollection = boards.filter((b) => sim.tenant.board(b.id)?.collectionId === collection!.id);
    const theme = sim.tenant.strategicThemes[1]!;
    expect(result.manifest.selectors.resolved).toEqual({
      risks: { registers: [{ id: '90001', key: 'OPS', title: 'Operations & delivery risks' }] },
      okrs: { strategicThemes: [{ id: theme.id, key: theme.key, title: theme.title }] },
      piObjectives: { boards: inCollection, completionType: null, additionalColumns: false },
      boardItems: { boards: boards.filter((b) => inCollection.includes(b) || b.title === 'Data & AI ART') },
    });
  });
});
