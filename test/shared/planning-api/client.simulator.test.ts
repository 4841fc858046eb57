import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, NotFoundError, RequestTimeoutError } from '../../../shared/core/errors';
import {
  createLimiter,
  PlanningApiClient,
  toArray,
  trackerRef,
  type CompletionType,
  type PiObjectiveGroup,
} from '../../../shared/planning-api';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';

/**
 * Every operation of the client against the API simulator (a real HTTP server with a generated
 * tenant). Expected values come from the simulator's `tenant`, never from the client.
 */

import { planningClient, type FlatClientOptions } from '../../support/planning-client';

const FAST_RETRY = { baseDelayMs: 2, maxDelayMs: 20 };

function clientOf(sim: RunningSimulator, options: FlatClientOptions = {}, email?: string): PlanningApiClient {
  return planningClient({ credentials: sim.credentials(email), retry: FAST_RETRY, ...options });
}


const riskPath = (registerId: string) => (req: { path: string }) => req.path === `/api/v1/${registerId}/risk`;

describe('against the simulator (tiny tenant)', () => {
  let sim: RunningSimulator;
  let client: PlanningApiClient;

  beforeAll(async () => {
    // Compares with the tenant's records in the contract's shapes; the docs vocabulary has its own tests (test/simulator/vocabulary.test.ts, test/shared/report/docs-vocabulary.test.ts).
    sim = await startSimulator({ tenant: 'tiny', seed: 11, vocabulary: 'contract' });
    client = clientOf(sim);
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    sim.clearRequests();
    sim.setFaults({});
  });

  describe('Risk API', () => {
    it('lists the registers', async () => {
      expect(await toArray(client.listRiskRegisters())).toEqual(sim.tenant.registers);
    });

    it('lists the risks of every register, by id and by key', async () => {
      for (const register of sim.tenant.registers) {
        expect(await toArray(client.listRisks(register.id))).toEqual(sim.tenant.risks(register.id));
        expect(await toArray(client.listRisks(register.key))).toEqual(sim.tenant.risks(register.id));
      }
    });

    it('gets one risk with every field', async () => {
      const risk = sim.tenant.allRisks[1]!;
      expect(await client.getRisk(risk.id)).toEqual(risk);
    });

    it('gets the register of a board, and answers NotFoundError for a board without one', async () => {
      for (const board of sim.tenant.boards) {
        const register = sim.tenant.registerOfBoard(board.id);
        if (register) {
          expect(await client.getBoardRegister(board.id)).toEqual({ ...register, board: board.ref });
        } else {
          const error = await client.getBoardRegister(board.id).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(NotFoundError);
          expect((error as Error).message).toBe(
            `getBoardRegister: no risk register is linked to board "${board.id}" (404): No risk register is linked to board '${board.id}'`,
          );
        }
      }
      expect(sim.tenant.boards.some((b) => !sim.tenant.registerOfBoard(b.id))).toBe(true);
    });

    it('lists the boards of a register', async () => {
      const register = sim.tenant.registers[0]!;
      expect(await toArray(client.listRegisterBoards(register.key))).toEqual(
        sim.tenant.boardsOfRegister(register.id).map((b) => b.ref),
      );
      expect(sim.requests.map((r) => r.query)).toEqual([{ startAt: '0', pageLimit: '50' }]);
    });
  });

  describe('Strategic Themes & OKRs API', () => {
    it('lists and gets portfolio themes, and their strategic themes as id, key and title', async () => {
      const { tenant } = sim;
      expect(await toArray(client.listPortfolioThemes())).toEqual(tenant.portfolioThemes);
      const portfolio = tenant.portfolioThemes[0]!;
      expect(await client.getPortfolioTheme(portfolio.key)).toEqual(portfolio);
      expect(await client.getPortfolioTheme(portfolio.id)).toEqual(portfolio);
      expect(await toArray(client.listPortfolioStrategicThemes(portfolio.key))).toEqual(
        tenant.strategicThemesOf(portfolio.id).map(({ id, key, title }) => ({ id, key, title })),
      );
    });

    it('lists and gets strategic themes, their objective groups and their progress', async () => {
      const { tenant } = sim;
      expect(await toArray(client.listStrategicThemes())).toEqual(tenant.strategicThemes);
      for (const theme of tenant.strategicThemes) {
        expect(await client.getStrategicTheme(theme.key)).toEqual(theme);
        expect(await toArray(client.listObjectiveGroups(theme.id))).toEqual(tenant.objectiveGroupsOf(theme.id));
        expect(await client.getThemeProgress(theme.key)).toEqual(tenant.themeProgress(theme.id));
      }
    });

    it('lists and gets objectives and key results', async () => {
      const { tenant } = sim;
      const group = tenant.objectiveGroupsOf(tenant.strategicThemes[0]!.id)[0]!;
      const objectives = tenant.objectivesOf(group.id);
      expect(await toArray(client.listObjectives(group.id))).toEqual(objectives);
      for (const objective of objectives) {
        expect(await client.getObjective(objective.key)).toEqual(objective);
        const keyResults = tenant.keyResultsOf(objective.id);
        expect(await toArray(client.listKeyResults(objective.key))).toEqual(keyResults);
        for (const keyResult of keyResults) expect(await client.getKeyResult(keyResult.id)).toEqual(keyResult);
      }
      // Every v1 call asked for full records.
      expect(sim.requests.every((r) => r.query.fields === 'all')).toBe(true);
    });
  });

  describe('PI Objectives and PI Board Items (legacy address)', () => {
    it('lists collections and boards', async () => {
      expect(await client.listCollections()).toEqual(sim.tenant.collections);
      expect(await client.listBoards()).toEqual(sim.tenant.boards.map((b) => b.record));
    });

    it('filters boards by collection, sending both parameter spellings', async () => {
      const collection = sim.tenant.collections[1]!;
      const boards = await client.listBoards({ collectionIds: [collection.id] });
      const expected = sim.tenant.boards.filter((b) => b.collectionId === collection.id).map((b) => b.record);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(sim.tenant.boards.length);
      expect(boards).toEqual(expected);
      expect(sim.requests[0]!.query).toEqual({ collectionIds: collection.id, collectionId: collection.id });
    });

    it.each([1, 2, 3, 4, 5, 6] as const)('projects completionType %i exactly as the server computes it', async (completionType) => {
      for (const board of sim.tenant.boards) {
        const groups = await client.listPiObjectiveGroups(board.id, { completionType });
        expect(groups).toEqual(sim.tenant.piObjectiveGroups(board.id, completionType));
        // Rules 3 and 4: an explicit value is used as is, in OKR mode too.
        expect(sim.tenant.effectiveCompletionType(board.id, completionType)).toBe(completionType);
      }
    });

    it('leaves the default to the board: 2 with OKR mode off, 6 with it on (rules 1 and 2)', async () => {
      const okrOff = sim.tenant.boards.find((b) => !b.okrMode)!;
      const okrOn = sim.tenant.boards.find((b) => b.okrMode)!;
      expect(await client.listPiObjectiveGroups(okrOff.id)).toEqual(sim.tenant.piObjectiveGroups(okrOff.id, 2));
      expect(await client.listPiObjectiveGroups(okrOn.id)).toEqual(sim.tenant.piObjectiveGroups(okrOn.id, 6));
      expect(sim.requests.map((r) => r.query.completionType)).toEqual([undefined, undefined]);
    });

    it('refuses an unknown completionType instead of letting the server fall back silently (rule 5)', async () => {
      const board = sim.tenant.boards[0]!;
      await expect(client.listPiObjectiveGroups(board.id, { completionType: 9 as CompletionType })).rejects.toThrow(RangeError);
      expect(sim.requests).toEqual([]);
      expect(sim.tenant.effectiveCompletionType(board.id, 9)).toBe(board.okrMode ? 6 : 2);
    });

    it('keeps a completion that is not computable as null, not 0 (rule 6)', async () => {
      const noTeams = sim.tenant.boards.find((b) => !b.hasTeamMappings)!;
      const groups = await client.listPiObjectiveGroups(noTeams.id, { completionType: 5 });
      const completions = groups.flatMap((g) => (g.objectives ?? []).map((o) => o.completion));
      expect(completions.length).toBeGreaterThan(0);
      expect(completions.every((c) => c === null)).toBe(true);
      const okrOff = sim.tenant.boards.find((b) => !b.okrMode)!;
      const okrFormula = await client.listPiObjectiveGroups(okrOff.id, { completionType: 6 });
      expect(okrFormula.flatMap((g) => (g.objectives ?? []).map((o) => o.completion)).every((c) => c === null)).toBe(true);
    });

    it('adds teamsAndSprints to linked items and sub-items only with additionalColumns', async () => {
      const board = sim.tenant.boards.find((b) => b.hasTeamMappings)!;
      const linkedOf = (groups: PiObjectiveGroup[]) =>
        groups.flatMap((g) => g.objectives ?? []).flatMap((o) => o.linkedItems ?? []);
      const withColumns = await client.listPiObjectiveGroups(board.id, { additionalColumns: true });
      expect(withColumns).toEqual(sim.tenant.piObjectiveGroups(board.id, undefined, true));
      expect(linkedOf(withColumns).some((item) => (item.teamsAndSprints ?? []).length > 0)).toBe(true);
      const without = await client.listPiObjectiveGroups(board.id);
      expect(linkedOf(without).every((item) => item.teamsAndSprints === undefined)).toBe(true);
      expect(sim.requests.map((r) => r.query.additionalColumns)).toEqual(['1', undefined]);
    });

    it('reads both tracker families', async () => {
      const template = 'https://tracker.example.com/browse/{key}';
      for (const family of ['extA', 'extB'] as const) {
        const board = sim.tenant.boards.find((b) => b.trackerFamily === family)!;
        const groups = await client.listPiObjectiveGroups(board.id);
        const items = groups
          .flatMap((g) => g.objectives ?? [])
          .flatMap((o) => o.linkedItems ?? [])
          .flatMap((item) => [item, ...(item.subItems ?? [])]);
        expect(items.length).toBeGreaterThan(0);
        for (const item of items) {
          const ref = trackerRef(item, { extBBrowseUrl: template });
          expect(ref.family).toBe(family);
          if (family === 'extA') {
            expect(ref).toEqual({ family, id: item.extAId, key: undefined, url: item.extAURL });
          } else {
            expect(ref).toEqual({
              family,
              id: item.extBId,
              key: item.extBKey,
              url: `https://tracker.example.com/browse/${item.extBKey}`,
            });
            expect(item.extAURL).toBeUndefined();
          }
        }
      }
    });

    it('pages through board items until an empty page', async () => {
      const board = sim.tenant.boards[0]!;
      const items = await toArray(client.listBoardItems(board.id, { fields: ['children', 'summary', 'status'], pageSize: 3 }));
      expect(items).toEqual(
        sim.tenant.boardItems(board.id).map((item) => ({ id: item.id, summary: item.summary, status: item.status, stories: item.stories })),
      );
      const count = sim.tenant.boardItemCount(board.id);
      // Full and short pages, then the empty page that ends the list.
      expect(sim.requests).toHaveLength(Math.ceil(count / 3) + 1);
    });

    it('returns the default item fields without a field list', async () => {
      const board = sim.tenant.boards[1]!;
      const items = await toArray(client.listBoardItems(board.id));
      expect(items).toHaveLength(sim.tenant.boardItemCount(board.id));
      expect(items.every((item) => item.stories === undefined)).toBe(true);
      expect(items[0]).toMatchObject({ id: sim.tenant.boardItem(board.id, 0)!.id, summary: sim.tenant.boardItem(board.id, 0)!.summary });
    });

    it('reads the sprint, team and status metadata of a board', async () => {
      for (const board of sim.tenant.boards) {
        expect(await client.listSprints(board.id)).toEqual(sim.tenant.sprints(board.id));
        expect(await client.listTeams(board.id)).toEqual(sim.tenant.teams(board.id));
        expect(await client.getStatuses(board.id)).toEqual(sim.tenant.statuses(board.id));
      }
    });
  });

  describe('visibility', () => {
    it('returns only what each user may see', async () => {
      for (const user of sim.users) {
        const view = sim.tenant.visibleTo(user.email);
        const asUser = clientOf(sim, {}, user.email);
        expect(await toArray(asUser.listRiskRegisters())).toEqual(view.registers);
        expect(await asUser.listBoards()).toEqual(view.boards.map((b) => b.record));
        expect(await asUser.listCollections()).toEqual(view.collections);
        expect(await toArray(asUser.listStrategicThemes())).toEqual(view.strategicThemes);
        expect(await toArray(asUser.listPortfolioThemes())).toEqual(view.portfolioThemes);
      }
    });

    it('answers a record the user may not see as not found', async () => {
      const alice = sim.users.find((u) => u.role === 'risk-manager')!;
      const view = sim.tenant.visibleTo(alice.email);
      const hidden = sim.tenant.registers.find((r) => !view.canSeeRegister(r.id))!;
      const hiddenRisk = sim.tenant.risks(hidden.id)[0]!;
      const asAlice = clientOf(sim, {}, alice.email);
      await expect(toArray(asAlice.listRisks(hidden.key))).rejects.toBeInstanceOf(NotFoundError);
      await expect(asAlice.getRisk(hiddenRisk.id)).rejects.toThrow(`getRisk: risk "${hiddenRisk.id}" was not found (404)`);
      const hiddenBoard = sim.tenant.boards.find((b) => !view.canSeeBoard(b.id))!;
      await expect(asAlice.listSprints(hiddenBoard.id)).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('errors', () => {
    it.each([
      ['getRisk', (c: PlanningApiClient) => c.getRisk('no-such-risk'), 'risk "no-such-risk" was not found'],
      ['listRisks', (c: PlanningApiClient) => toArray(c.listRisks('NOPE')), 'risk register "NOPE" was not found'],
      ['listRegisterBoards', (c: PlanningApiClient) => toArray(c.listRegisterBoards('NOPE')), 'risk register "NOPE" was not found'],
      ['getPortfolioTheme', (c: PlanningApiClient) => c.getPortfolioTheme('PT-0'), 'portfolio theme "PT-0" was not found'],
      ['listPortfolioStrategicThemes', (c: PlanningApiClient) => toArray(c.listPortfolioStrategicThemes('PT-0')), 'portfolio theme "PT-0" was not found'],
      ['getStrategicTheme', (c: PlanningApiClient) => c.getStrategicTheme('ST-0'), 'strategic theme "ST-0" was not found'],
      ['listObjectiveGroups', (c: PlanningApiClient) => toArray(c.listObjectiveGroups('ST-0')), 'strategic theme "ST-0" was not found'],
      ['getThemeProgress', (c: PlanningApiClient) => c.getThemeProgress('ST-0'), 'strategic theme "ST-0" was not found'],
      ['listObjectives', (c: PlanningApiClient) => toArray(c.listObjectives('g-0')), 'objective group "g-0" was not found'],
      ['getObjective', (c: PlanningApiClient) => c.getObjective('O-0'), 'objective "O-0" was not found'],
      ['listKeyResults', (c: PlanningApiClient) => toArray(c.listKeyResults('O-0')), 'objective "O-0" was not found'],
      ['getKeyResult', (c: PlanningApiClient) => c.getKeyResult('KR-0'), 'key result "KR-0" was not found'],
      ['listPiObjectiveGroups', (c: PlanningApiClient) => c.listPiObjectiveGroups('0'), 'board "0" was not found'],
      ['listBoardItems', (c: PlanningApiClient) => toArray(c.listBoardItems('0')), 'board "0" was not found'],
      ['listTeams', (c: PlanningApiClient) => c.listTeams('0'), 'board "0" was not found'],
      ['getStatuses', (c: PlanningApiClient) => c.getStatuses('0'), 'board "0" was not found'],
    ])('%s of an unknown record throws NotFoundError naming it', async (operation, run, sentence) => {
      const error = await run(client).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message.startsWith(`${operation}: ${sentence} (404)`)).toBe(true);
      expect(sim.requests).toHaveLength(1);
    });

    it('reports a wrong API key as AuthenticationError without the key', async () => {
      const credentials = { ...sim.credentials(), apiKey: 'wrong-key-0123456789abcdef' };
      const token = Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64');
      for (const run of [
        (c: PlanningApiClient) => toArray(c.listRiskRegisters()),
        (c: PlanningApiClient) => c.listCollections(),
      ]) {
        const error = await run(planningClient({ credentials, retry: FAST_RETRY })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect((error as Error).message).toContain('Check the e-mail and API key');
        const everything = `${(error as Error).message} ${JSON.stringify(error)} ${inspect(error, { depth: 10, showHidden: true })}`;
        expect(everything).not.toContain(credentials.apiKey);
        expect(everything).not.toContain(token);
      }
      expect(sim.requests.map((r) => r.status)).toEqual([401, 401]);
    });
  });
});

describe('against the simulator (one register of 137 risks)', () => {
  let sim: RunningSimulator;
  let registerId: string;
  const allIds = (): string[] => sim.tenant.risks(registerId).map((r) => r.id);

  beforeAll(async () => {
    sim = await startSimulator({ tenant: { registers: 1, risksPerRegister: 137, boards: 2, itemsPerBoard: 40 }, seed: 3, vocabulary: 'contract' });
    registerId = sim.tenant.registers[0]!.id;
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    sim.clearRequests();
    sim.setFaults({});
  });

  it('fetches 137 risks with exactly 3 requests', async () => {
    const risks = await toArray(clientOf(sim).listRisks(registerId));
    expect(risks).toEqual(sim.tenant.risks(registerId));
    expect(sim.requests.map((r) => r.query.startAt)).toEqual(expect.arrayContaining(['0', '50', '100']));
    expect(sim.requests).toHaveLength(3);
  });

  it('pages with a smaller page size across several pages', async () => {
    const risks = await toArray(clientOf(sim, { pageLimit: 20 }).listRisks(registerId));
    expect(risks.map((r) => r.id)).toEqual(allIds());
    expect(sim.requests).toHaveLength(7);
  });

  it.each([
    ['a 429 with Retry-After 0', { status: 429, retryAfter: '0' }],
    ['a 503', { status: 503 }],
    ['a connection reset', { status: 'reset' }],
  ] as const)('loses and repeats nothing when a page meets %s, at the cost of one request', async (_name, fault) => {
    sim.injectFault({ ...fault, match: (req) => riskPath(registerId)(req) && req.query.get('startAt') === '50' });
    const risks = await toArray(clientOf(sim).listRisks(registerId));
    expect(risks.map((r) => r.id)).toEqual(allIds());
    expect(sim.requests).toHaveLength(4);
    expect(sim.requests.filter((r) => r.fault === 'injected')).toHaveLength(1);
  });

  // A timeout ten times what a local answer takes on a busy machine, and slow answers three times the
  // timeout: only the injected slow answers time out, not an answer the machine was slow to give.
  it('still yields exactly the tenant records under random faults', async () => {
    sim.setFaults({ rate429: 0.15, rate5xx: 0.15, rateSlow: 0.05, slowMs: 3_000, retryAfter: '0' });
    const client = clientOf(sim, { timeoutMs: 1_000, pageLimit: 10, retry: { ...FAST_RETRY, maxAttempts: 12 } });
    expect(await toArray(client.listRisks(registerId))).toEqual(sim.tenant.risks(registerId));
    for (const board of sim.tenant.boards) {
      const items = await toArray(client.listBoardItems(board.id, { fields: ['children'], pageSize: 7 }));
      expect(items).toEqual(sim.tenant.boardItems(board.id).map((item) => ({ id: item.id, stories: item.stories })));
      expect(await client.getStatuses(board.id)).toEqual(sim.tenant.statuses(board.id));
    }
    expect(sim.requests.some((r) => r.fault !== undefined)).toBe(true);
  });
});

/**
 * Timeouts without racing two timers: the simulator holds a slow answer until the test releases it,
 * and the attempt waiting for it ends when it reaches the simulator, through the client's injected
 * timeout signal. One request on the wire at a time (a limiter of one slot), so the attempt that
 * reached the simulator is the latest one begun.
 */
describe('against the simulator (slow answers held back)', () => {
  const HELD_MS = 60_000;
  const TIMEOUT_MS = 250;
  let sim: RunningSimulator;
  let registerId: string;
  const held: (() => void)[] = [];
  let attempts: AbortController[] = [];

  beforeAll(async () => {
    sim = await startSimulator({
      tenant: { registers: 1, risksPerRegister: 137, boards: 1, itemsPerBoard: 1 },
      seed: 3,
      // Only slow faults wait here (no latency is set): the answer waits for release, the attempt ends now.
      wait: (ms) =>
        new Promise<void>((resolve) => {
          expect(ms).toBe(HELD_MS);
          held.push(resolve);
          attempts.at(-1)!.abort(new DOMException('timed out', 'TimeoutError'));
        }),
    });
    registerId = sim.tenant.registers[0]!.id;
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    attempts = [];
    sim.clearRequests();
    sim.clearInjectedFaults();
  });
  afterEach(() => {
    for (const release of held.splice(0)) release();
  });

  const heldClient = (options: FlatClientOptions = {}) =>
    clientOf(sim, {
      timeoutMs: TIMEOUT_MS,
      limiter: createLimiter(1),
      timeoutSignal: (ms) => {
        expect(ms).toBeLessThanOrEqual(TIMEOUT_MS);
        const attempt = new AbortController();
        attempts.push(attempt);
        return attempt.signal;
      },
      ...options,
    });

  it('retries a request that times out', async () => {
    sim.injectFault({ status: 'slow', delayMs: HELD_MS, match: (req) => req.query.get('startAt') === '100' });
    const risks = await toArray(heldClient().listRisks(registerId));
    expect(risks.map((r) => r.id)).toEqual(sim.tenant.risks(registerId).map((r) => r.id));
    // Four attempts: three pages, the third twice. The held one is logged only once it is answered.
    expect(attempts).toHaveLength(4);
    expect(held).toHaveLength(1);
    expect(sim.requests.map((r) => r.query.startAt)).toEqual(['0', '50', '100']);
    expect(sim.requests.filter((r) => r.fault !== undefined)).toEqual([]);
  });

  it('throws RequestTimeoutError when every attempt is too slow', async () => {
    sim.injectFault({ status: 'slow', delayMs: HELD_MS, times: 2 });
    const error = await heldClient({ retry: { ...FAST_RETRY, maxAttempts: 2 } })
      .getRisk(sim.tenant.risks(registerId)[0]!.id)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).message).toBe(`getRisk: no complete response from baseUrl ${new URL(sim.v1BaseUrl).origin} (the Risk group) within ${TIMEOUT_MS} ms (gave up after 2 attempts)`);
    expect(attempts).toHaveLength(2);
    expect(held).toHaveLength(2);
  });
});

describe('against the simulator (board items page size capped by the server)', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: { boards: 1, itemsPerBoard: 23 }, maxItemsPageSize: 5 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('does not stop at a short page', async () => {
    const board = sim.tenant.boards[0]!;
    const items = await toArray(clientOf(sim).listBoardItems(board.id, { pageSize: 50 }));
    expect(items.map((i) => i.id)).toEqual(sim.tenant.boardItems(board.id).map((i) => i.id));
    expect(sim.requests.map((r) => (r.body as { pageStart: number }).pageStart)).toEqual([0, 5, 10, 15, 20, 23]);
  });
});
