import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { scopedLedger, storageScope } from '../../../shared/ledger/scoped-ledger';
import { startDynalite, type DynaliteHandle } from '../../support/dynalite';

describe('a ledger table shared by two prefixes (dynalite)', () => {
  let dynamo: DynaliteHandle;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo.close();
  });

  it('keeps runs and latest of each prefix apart, and shares job status and run links', async () => {
    const table = new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName });
    const a = scopedLedger(table, storageScope('reports', 'team-a'));
    const b = scopedLedger(table, storageScope('reports', '/team-b/'));
    expect(storageScope('reports', '/team-b/')).toBe('s3://reports/team-b');

    for (const key of [ledgerKey('latest', 'weekly'), ledgerKey('run', 'weekly', 'r1')]) {
      expect(await a.put(key, { from: 'a' }, 0)).toBe(true);
      expect(await b.get(key)).toBeUndefined();
      expect(await b.put(key, { from: 'b' }, 0)).toBe(true);
      expect(await a.get(key)).toEqual({ value: { from: 'a' }, version: 1 });
      expect(await b.get(key)).toEqual({ value: { from: 'b' }, version: 1 });
      expect(await table.get(key)).toBeUndefined();
    }
    // A prefix that merely starts like another is another scope.
    expect(await scopedLedger(table, storageScope('reports', 'team')).get(ledgerKey('latest', 'weekly'))).toBeUndefined();

    const job = ledgerKey('job', 'export-1');
    expect(await a.put(job, { status: 'queued' }, 0)).toBe(true);
    expect(await b.get(job)).toEqual({ value: { status: 'queued' }, version: 1 });
    expect(await table.get(ledgerKey('run-link', 'revoked', 'x'))).toBeUndefined();
    expect(a.describe()).toContain('s3://reports/team-a');
  });
});
