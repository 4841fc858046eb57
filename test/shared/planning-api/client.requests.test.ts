import { afterEach, describe, expect, it } from 'vitest';
import { toArray } from '../../../shared/planning-api';
import type { PlanningSource } from '../../../shared/report/dataset/planning-source';
import { sendJson, startServer, testCredentials, type TestServer } from './test-server';
import { planningClient } from '../../support/planning-client';

/**
 * Where each operation goes and what it sends: paths, query parameters, bodies, envelope keys.
 * The server answers every path with a minimal valid body of the right envelope.
 */

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(credentialOverrides: { baseUrl?: string; legacyBaseUrl?: string } = {}) {
  server = await startServer((req, res) => {
    const p = req.path;
    if (p.includes('/api/acme/')) {
      if (p.endsWith('/statuses')) {
        sendJson(res, 200, { parentStatuses: [{ id: 's-1', title: 'To Do', rowStatus: 1 }], childrenStatuses: [] });
      } else if (p.endsWith('/items')) {
        const { pageStart } = req.body as { pageStart: number };
        sendJson(res, 200, { data: pageStart === 0 ? [{ id: 'f-1' }] : [] });
      } else sendJson(res, 200, { data: [{ id: 'x-1', title: 'One' }] });
      return;
    }
    if (p.endsWith('/progress')) {
      sendJson(res, 200, { Data: { themeProgress: 40, groupsProgress: { 'g-1': 40 } } });
      return;
    }
    const okr = /portfolio-themes|strategic-themes|objective-groups|objectives|key-results/.test(p);
    const single = req.query.get('startAt') === null;
    const record = { id: 'x-1', key: 'K-1', title: 'One' };
    const key = okr ? 'Data' : 'data';
    sendJson(res, 200, single ? { [key]: [record] } : { startAt: 0, pageLimit: 50, total: 1, [key]: [record] });
  });
  const client = planningClient({ credentials: { ...testCredentials(server.url), ...credentialOverrides } });
  return { client, server };
}

const seen = (s: TestServer): string[] =>
  s.requests.map((r) => `${r.method} ${r.path}${r.query.size ? `?${r.query.toString()}` : ''}${r.body ? ` ${JSON.stringify(r.body)}` : ''}`);

describe('v1 operations', () => {
  it('call /api/v1 paths with fields=all and paging', async () => {
    const { client, server } = await start();
    await toArray(client.listRiskRegisters());
    await toArray(client.listRisks('RR 1'));
    await client.getRisk('r-1');
    await client.getBoardRegister('b-1');
    await toArray(client.listRegisterBoards('RR'));
    await toArray(client.listPortfolioThemes());
    await client.getPortfolioTheme('PT-1');
    await toArray(client.listStrategicThemes());
    await toArray(client.listPortfolioStrategicThemes('PT-1'));
    await client.getStrategicTheme('ST-1');
    await toArray(client.listObjectiveGroups('ST-1'));
    await client.getThemeProgress('ST-1');
    await toArray(client.listObjectives('g-1'));
    await client.getObjective('O-1');
    await toArray(client.listKeyResults('O-1'));
    await client.getKeyResult('KR-1');
    const paged = 'fields=all&startAt=0&pageLimit=50';
    expect(seen(server)).toEqual([
      `GET /api/v1/riskregister?${paged}`,
      `GET /api/v1/RR%201/risk?${paged}`,
      'GET /api/v1/risk/r-1?fields=all',
      'GET /api/v1/b-1/riskregister?fields=all',
      'GET /api/v1/RR/boards?startAt=0&pageLimit=50',
      `GET /api/v1/portfolio-themes?${paged}`,
      'GET /api/v1/portfolio-themes/PT-1?fields=all',
      `GET /api/v1/strategic-themes?${paged}`,
      `GET /api/v1/portfolio-themes/PT-1/strategic-themes?${paged}`,
      'GET /api/v1/strategic-themes/ST-1?fields=all',
      `GET /api/v1/strategic-themes/ST-1/objective-groups?${paged}`,
      'GET /api/v1/strategic-themes/ST-1/progress',
      `GET /api/v1/objective-groups/g-1/objectives?${paged}`,
      'GET /api/v1/objectives/O-1?fields=all',
      `GET /api/v1/objectives/O-1/key-results?${paged}`,
      'GET /api/v1/key-results/KR-1?fields=all',
    ]);
  });

  it('reads the progress object inside Data', async () => {
    const { client } = await start();
    expect(await client.getThemeProgress('ST-1')).toEqual({ themeProgress: 40, groupsProgress: { 'g-1': 40 } });
  });

  it.each(['', '/', '/proxy/', '/proxy'])('joins a base URL ending in "%s"', async (suffix) => {
    const { server } = await start();
    const withSuffix = planningClient({
      credentials: { ...testCredentials(server.url), baseUrl: `${server.url}${suffix}`, legacyBaseUrl: `${server.url}${suffix}` },
    });
    await withSuffix.getRisk('r-1');
    await withSuffix.listCollections();
    const prefix = suffix.startsWith('/proxy') ? '/proxy' : '';
    expect(server.requests.map((r) => r.path)).toEqual([`${prefix}/api/v1/risk/r-1`, `${prefix}/api/acme/collections`]);
  });
});

describe('legacy operations', () => {
  it('call /api/<companyPrefix> paths on the legacy address', async () => {
    const { client, server } = await start();
    await client.listCollections();
    await client.listBoards();
    await client.listPiObjectiveGroups('b-1');
    await toArray(client.listBoardItems('b-1'));
    await client.listSprints('b-1');
    await client.listTeams('b-1');
    await client.getStatuses('b-1');
    expect(seen(server)).toEqual([
      'GET /legacy/api/acme/collections',
      'GET /legacy/api/acme/boards',
      'GET /legacy/api/acme/objective-groups?boardId=b-1',
      'POST /legacy/api/acme/items {"boardId":"b-1","pageStart":0,"pageSize":50}',
      'POST /legacy/api/acme/items {"boardId":"b-1","pageStart":1,"pageSize":50}',
      'POST /legacy/api/acme/sprints {"boardId":"b-1"}',
      'POST /legacy/api/acme/teams {"boardId":"b-1"}',
      'POST /legacy/api/acme/statuses {"boardId":"b-1"}',
    ]);
  });

  it('filters boards by collection with both the plural and the singular parameter', async () => {
    const { client, server } = await start();
    await client.listBoards({ collectionIds: ['c-1', 'c-2'] });
    await client.listBoards({ collectionIds: [] });
    expect(seen(server)).toEqual([
      'GET /legacy/api/acme/boards?collectionIds=c-1%2Cc-2&collectionId=c-1%2Cc-2',
      'GET /legacy/api/acme/boards',
    ]);
  });

  it('sends completionType and additionalColumns=1 for objective groups', async () => {
    const { client, server } = await start();
    await client.listPiObjectiveGroups('b-1', { completionType: 4, additionalColumns: true });
    await client.listPiObjectiveGroups('b-1', { completionType: 6, additionalColumns: false });
    expect(seen(server)).toEqual([
      'GET /legacy/api/acme/objective-groups?boardId=b-1&completionType=4&additionalColumns=1',
      'GET /legacy/api/acme/objective-groups?boardId=b-1&completionType=6',
    ]);
  });

  it('rejects a completionType the server would silently replace by its default', async () => {
    const { client, server } = await start();
    await expect(client.listPiObjectiveGroups('b-1', { completionType: 7 as never })).rejects.toThrow(
      new RangeError('completionType must be one of 1 to 6, got 7'),
    );
    expect(server.requests).toEqual([]);
  });

  it('reads statuses from a body without a data key', async () => {
    const { client } = await start();
    expect(await client.getStatuses('b-1')).toEqual({
      parentStatuses: [{ id: 's-1', title: 'To Do', rowStatus: 1 }],
      childrenStatuses: [],
    });
  });
});

describe('the report port', () => {
  it('is implemented by PlanningApiClient', async () => {
    const { client } = await start();
    const source: PlanningSource = client;
    expect(await source.listCollections()).toEqual([{ id: 'x-1', title: 'One' }]);
  });
});
