import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../shared/core/errors';
import { DynamoDbLedger, LEDGER_PARTITION_KEY, LEDGER_TTL_ATTRIBUTE } from '../../../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../../../shared/ledger/ledger';
import { ledgerRecord } from '../../../shared/ledger/ledger-record';
import { bothLedgers } from '../../support/ledger-adapters';

/** The typed record over both adapters: DynamoDB (dynalite enforces ConditionExpression) and a local directory. */
const both = bothLedgers('ledger-record-');
const { adapters } = both;
let n = 0;
const unique = (name: string) => `record/${name}-${++n}`;

const listSchema = z.object({ items: z.array(z.string()) });
type List = z.infer<typeof listSchema>;
const list = (ledger: Ledger, key: string) => ledgerRecord(ledger, key, listSchema, { what: `the list ${key}` });
const adding = (item: string) => (current: List | undefined): List | undefined =>
  current?.items.includes(item) ? undefined : { items: [...(current?.items ?? []), item] };

/** The ledger with `get` held until `count` reads have been made: every writer reads the same version. */
function readTogether(ledger: Ledger, count: number): Ledger {
  let reads = 0;
  let release: () => void = () => undefined;
  const together = new Promise<void>((resolve) => (release = resolve));
  return {
    get: async (key) => {
      const entry = await ledger.get(key);
      if (++reads === count) release();
      if (reads <= count) await together;
      return entry;
    },
    put: (...args) => ledger.put(...args),
    describe: () => ledger.describe(),
  };
}

/** The ledger with another writer that moves the entry on between every read and write of ours. */
function alwaysOvertaken(ledger: Ledger): Ledger {
  return {
    get: (key) => ledger.get(key),
    put: async (key, value, expectedVersion, options) => {
      const current = await ledger.get(key);
      await ledger.put(key, current?.value ?? { items: [] }, current?.version ?? 0, options);
      return ledger.put(key, value, expectedVersion, options);
    },
    describe: () => ledger.describe(),
  };
}

describe.each(adapters)('a ledger record on the %s ledger', (_name, make) => {
  it('reads none as version 0, writes a change, and keeps the entry when the decision is none', async () => {
    const record = list(make(), unique('basic'));
    expect(await record.read()).toEqual({ value: undefined, version: 0 });
    expect(await record.change(adding('a'))).toEqual({ outcome: 'written', value: { items: ['a'] }, previous: undefined, version: 1 });
    expect(await record.change(adding('a'))).toEqual({ outcome: 'kept', value: { items: ['a'] }, version: 1 });
    expect(await record.change(adding('b'))).toMatchObject({ outcome: 'written', previous: { items: ['a'] }, version: 2 });
    expect(await record.read()).toEqual({ value: { items: ['a', 'b'] }, version: 2 });
  });

  it('keeps both changes of two writers who read the same version: the loser reads again and adds its own', async () => {
    const key = unique('two-writers');
    const ledger = readTogether(make(), 2);
    const decided: string[] = [];
    const writer = (item: string) => list(ledger, key).change((current) => (decided.push(item), adding(item)(current)));
    const results = await Promise.all([writer('first'), writer('second')]);
    expect(results.map((r) => r.outcome)).toEqual(['written', 'written']);
    // Three decisions: both on the empty entry, then the loser's again on the winner's.
    expect(decided).toHaveLength(3);
    const { value, version } = await list(make(), key).read();
    expect([...(value?.items ?? [])].sort()).toEqual(['first', 'second']);
    expect(version).toBe(2);
  });

  it('keeps every change of eight concurrent writers', async () => {
    const key = unique('eight-writers');
    const items = Array.from({ length: 8 }, (_, i) => `w${i}`);
    await Promise.all(items.map((item) => list(make(), key).change(adding(item))));
    const { value, version } = await list(make(), key).read();
    expect([...(value?.items ?? [])].sort()).toEqual(items);
    expect(version).toBe(8);
  });

  it('gives up after its rounds with a retryable StorageError, or answers `lost` when asked to', async () => {
    const key = unique('overtaken');
    let decisions = 0;
    const record = list(alwaysOvertaken(make()), key);
    const failure = await record.change((current) => (decisions++, adding('mine')(current)), { rounds: 3 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).retryable).toBe(true);
    expect((failure as StorageError).message).toBe(`could not change the list ${key}: the ledger ${make().describe()} kept changing`);
    expect(decisions).toBe(3);
    expect(await record.change(adding('mine'), { rounds: 2, lost: 'answer' })).toEqual({ outcome: 'lost' });
    expect((await list(make(), key).read()).value).toEqual({ items: [] });
  });

  it('fails on a stored value its schema refuses, or reads it as none and replaces it', async () => {
    const ledger = make();
    const key = unique('invalid');
    expect(await ledger.put(key, { items: 'not a list' }, 0)).toBe(true);
    const failure = await list(ledger, key).read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).retryable).toBe(false);
    expect((failure as StorageError).message).toMatch(new RegExp(`^the list ${key} in .* is not valid: `));

    const problems: string[] = [];
    const lenient = ledgerRecord(ledger, key, listSchema, { what: 'the lenient list', invalid: (problem) => problems.push(problem) });
    expect(await lenient.read()).toEqual({ value: undefined, version: 1 });
    expect(problems).toEqual([expect.stringMatching(/^the lenient list in .* is not valid: /)]);
    expect(await lenient.change(adding('a'))).toMatchObject({ outcome: 'written', previous: undefined, version: 2 });
    expect(await list(ledger, key).read()).toEqual({ value: { items: ['a'] }, version: 2 });
  });

  it('writes only what its schema accepts, and put writes on the version given alone', async () => {
    const ledger = make();
    const key = unique('put');
    const record = list(ledger, key);
    expect(await record.put({ items: ['a'], extra: 'dropped' } as List, 0)).toBe(true);
    expect(await record.put({ items: ['again'] }, 0)).toBe(false);
    expect(await ledger.get(key)).toEqual({ value: { items: ['a'] }, version: 1 });
    await expect(record.change(() => ({ items: [1] }) as unknown as List)).rejects.toThrow(z.ZodError);
    expect(await record.put({ items: ['b'] }, 1)).toBe(true);
    expect(await record.read()).toEqual({ value: { items: ['b'] }, version: 2 });
  });
});

describe('a ledger record on DynamoDB', () => {
  it('gives the item the expiry the change asks for, from the value written', async () => {
    const key = unique('expiry');
    const datedSchema = z.object({ until: z.string() });
    const record = ledgerRecord(new DynamoDbLedger({ client: both.dynamo().client, tableName: both.dynamo().tableName }), key, datedSchema, { what: 'a dated entry' });
    await record.change(() => ({ until: '2027-01-01T00:00:00.000Z' }), { expiresAt: (value) => new Date(value.until) });
    const { Item } = await both.dynamo().client.send(new GetItemCommand({ TableName: both.dynamo().tableName, Key: { [LEDGER_PARTITION_KEY]: { S: key } } }));
    expect(Item?.[LEDGER_TTL_ATTRIBUTE]?.N).toBe(String(Date.parse('2027-01-01T00:00:00.000Z') / 1000));
  });
});
