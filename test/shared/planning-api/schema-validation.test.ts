import { afterEach, describe, expect, it } from 'vitest';
import { SchemaMismatchError } from '../../../shared/core/errors';
import { PlanningApiClient, toArray } from '../../../shared/planning-api';
import { sendJson, startServer, testCredentials, type TestServer } from './test-server';
import { planningClient } from '../../support/planning-client';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client whose server answers every request with `body`. */
async function answering(body: unknown): Promise<PlanningApiClient> {
  server = await startServer((_req, res) => sendJson(res, 200, body));
  return planningClient({ credentials: testCredentials(server.url) });
}

const page = (key: 'data' | 'Data', records: unknown[]) => ({ startAt: 0, pageLimit: 50, total: records.length, [key]: records });

async function mismatch(run: () => Promise<unknown>): Promise<SchemaMismatchError> {
  const error = await run().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SchemaMismatchError);
  return error as SchemaMismatchError;
}

describe('record validation', () => {
  it('names the operation, the record id and the field path of a bad field', async () => {
    const client = await answering(
      page('data', [
        { id: 'r-11', title: 'Fine' },
        { id: 'r-12', customFields: [{ id: 'cf1' }, { id: 'cf2' }, { id: 'cf3', title: { text: 'nested' } }] },
      ]),
    );
    const error = await mismatch(() => toArray(client.listRisks('RR')));
    expect(error.message).toBe('listRisks: record "r-12" field customFields[2].title: expected string or number, received object');
    expect(error).toMatchObject({ operation: 'listRisks', recordId: 'r-12', path: 'customFields[2].title' });
  });

  it('points at a record without id by its position', async () => {
    const client = await answering(page('Data', [{ id: 'o-1' }, { id: 'o-2' }, { title: 'anonymous' }]));
    const error = await mismatch(() => toArray(client.listObjectives('g-1')));
    expect(error.message).toBe('listObjectives: record #3 (no id) field id: expected string or number, received undefined');
  });

  it('reports a number that is neither a number nor a numeric string', async () => {
    const client = await answering({ Data: [{ id: 'kr-1', metric: { baseline: 0, target: 'lots' } }] });
    const error = await mismatch(() => client.getKeyResult('kr-1'));
    expect(error.message).toBe('getKeyResult: record "kr-1" field metric.target: expected a number or numeric string, received "lots"');
  });

  it('finds bad fields deep inside PI objective groups', async () => {
    const client = await answering({
      data: [{ id: 'g-1', objectives: [{ id: 'PO-1', linkedItems: [{ id: 'i-1', subItems: [{ id: 's-1', status: 'Done' }] }] }] }],
    });
    const error = await mismatch(() => client.listPiObjectiveGroups('b-1'));
    expect(error.message).toBe(
      'listPiObjectiveGroups: record "g-1" field objectives[0].linkedItems[0].subItems[0].status: expected object, received string',
    );
  });

  it('places a bad status within its list', async () => {
    const client = await answering({ parentStatuses: [{ id: 's-1' }, { id: 's-2', rowStatus: 'high' }] });
    const error = await mismatch(() => client.getStatuses('b-1'));
    expect(error.message).toBe(
      'getStatuses: record "s-2" field parentStatuses[1].rowStatus: expected a number or numeric string, received "high"',
    );
  });

  it('accepts numeric ids, numeric strings, nulls and unknown fields', async () => {
    const client = await answering({
      data: [{ id: 42, title: null, storyPoints: '5', extra: { anything: true } }],
    });
    const [group] = await client.listPiObjectiveGroups('b-1');
    expect(group).toEqual({ id: '42', title: null, storyPoints: '5', extra: { anything: true } });
  });
});

describe('envelopes', () => {
  it('reads the OKR envelope only under Data and says so when it finds data', async () => {
    const client = await answering(page('data', [{ id: 'pt-1' }]));
    const error = await mismatch(() => toArray(client.listPortfolioThemes()));
    expect(error.message).toBe('listPortfolioThemes: response field Data: missing (found "data" instead; this API group uses "Data")');
  });

  it('reads the Risk envelope only under data', async () => {
    const client = await answering(page('Data', [{ id: 'r-1' }]));
    const error = await mismatch(() => toArray(client.listRiskRegisters()));
    expect(error.message).toBe('listRiskRegisters: response field data: missing (found "Data" instead; this API group uses "data")');
  });

  it('rejects a list that is not an array', async () => {
    const client = await answering({ data: { id: 'c-1' } });
    const error = await mismatch(() => client.listCollections());
    expect(error.message).toBe('listCollections: response field data: expected array, received object');
  });

  it('rejects a total that is not a count', async () => {
    const client = await answering({ startAt: 0, pageLimit: 50, total: -3, data: [{ id: 'r-1' }] });
    const error = await mismatch(() => toArray(client.listRiskRegisters()));
    expect(error.message).toBe('listRiskRegisters: response field total: expected a non-negative integer, received -3');
  });

  it('rejects a body that is not an object', async () => {
    const client = await answering([{ id: 'c-1' }]);
    const error = await mismatch(() => client.listCollections());
    expect(error.message).toBe('listCollections: response body: expected an object, received array');
  });

  it('accepts a single record given as an object instead of a one-element array', async () => {
    const client = await answering({ data: { id: 'r-1', key: 'RR-1' } });
    expect(await client.getRisk('r-1')).toEqual({ id: 'r-1', key: 'RR-1' });
  });
});
