import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, NotFoundError, PlanningApiError } from '../../../shared/core/errors';
import { PlanningApiClient, toArray, type PlanningApiClientOptions } from '../../../shared/planning-api';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { sendJson, startServer, testCredentials, type TestServer } from './test-server';
import { planningClient } from '../../support/planning-client';

/**
 * The error answers the service's public documentation shows, served by the simulator in the docs
 * vocabulary: the client turns each into an error that names what was wrong and what to do.
 */

const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

function clientOf(sim: RunningSimulator, options: Partial<PlanningApiClientOptions> = {}): PlanningApiClient {
  return planningClient({ credentials: sim.credentials(), retry: FAST_RETRY, ...options });
}

describe('documented errors, against the simulator in the docs vocabulary', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny', seed: 5, vocabulary: 'docs' });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => {
    sim.clearRequests();
    sim.clearInjectedFaults();
  });

  it('a wrong board id (500 No Session Board found) names the board, says how to list the boards, and is not retried', async () => {
    const error = await toArray(clientOf(sim).listBoardItems('board-from-the-address-bar')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const message = (error as Error).message;
    expect(message).toContain('board "board-from-the-address-bar"');
    expect(message).toContain('No Session Board found');
    expect(message).toContain('npm run discover -- --credentials');
    expect((error as PlanningApiError).status).toBe(500);
    expect(sim.requests.filter((r) => r.path.endsWith('/items'))).toHaveLength(1);
  });

  it('names the board of a PI objectives call too (boardId in the query)', async () => {
    const error = await clientOf(sim).listPiObjectiveGroups('b-unknown').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/board "b-unknown".*npm run discover/);
  });

  it('a wrong company prefix (404 Invalid company prefix in URL.) names the prefix from the credentials', async () => {
    const client = planningClient({ credentials: { ...sim.credentials(), companyPrefix: 'acmee' }, retry: FAST_RETRY });
    const error = await client.listBoards().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const message = (error as Error).message;
    expect(message).toContain('company prefix "acmee"');
    expect(message).toContain('Invalid company prefix in URL.');
    expect(message).toContain('companyPrefix in the credentials document');
  });

  it('retries a 504 like a 503 and then reads the answer', async () => {
    sim.injectFault({ status: 504, times: 2, match: (r) => r.path.endsWith('/collections') });
    const collections = await clientOf(sim).listCollections();
    expect(collections.map((c) => c.id)).toEqual(sim.tenant.collections.map((c) => c.id));
    expect(sim.requests.filter((r) => r.path.endsWith('/collections')).map((r) => r.status)).toEqual([504, 504, 200]);
  });

  it('reads errorMessages sent as a string (a v1 404)', async () => {
    const error = await clientOf(sim).getRisk('no-such-risk').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toContain("Risk 'no-such-risk' does not exist");
  });

  it('reads a bad key on the legacy address ({"error":"Invalid API Key"}) as a credentials problem', async () => {
    const client = planningClient({ credentials: { ...sim.credentials(), apiKey: 'sim-wrong-key-123456' }, retry: FAST_RETRY });
    const error = await client.listCollections().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/rejected the credentials \(401\).*Invalid API Key/);
  });
});

describe('error bodies of both documented shapes', () => {
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['errorMessages as a string', { errorMessages: 'Register key is not valid' }, 'Register key is not valid'],
    ['errorMessages as an array', { errorMessages: ['First', 'Second'] }, 'First; Second'],
    ['error', { error: 'Something broke' }, 'Something broke'],
  ])('puts the server words of %s into the error', async (_name, body, words) => {
    await server?.close();
    server = await startServer((_req, res) => sendJson(res, 400, body));
    const client = planningClient({ credentials: testCredentials(server.url), retry: FAST_RETRY });
    const error = await toArray(client.listRiskRegisters()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as Error).message).toContain(`400: ${words}`);
  });

  it('still retries a 500 that is not the documented board answer', async () => {
    await server?.close();
    let calls = 0;
    server = await startServer((_req, res) => {
      calls += 1;
      if (calls === 1) sendJson(res, 500, { error: 'Internal server error' });
      else sendJson(res, 200, { data: [{ id: 'c-1', title: 'Collection' }] });
    });
    const client = planningClient({ credentials: testCredentials(server.url), retry: FAST_RETRY });
    expect(await client.listCollections()).toEqual([{ id: 'c-1', title: 'Collection' }]);
    expect(calls).toBe(2);
  });
});
