import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { LeaseLostError, RunInProgressError } from '../../../shared/core/errors';
import { silentLog } from '../../../shared/core/logger';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { RunLease } from '../../../shared/report/run/run-lease';
import { bothLedgers } from '../../support/ledger-adapters';

/** The same rules for both adapters: DynamoDB (dynalite enforces ConditionExpression) and a local directory. */
const both = bothLedgers('ledger-');
const { adapters } = both;

/** The DynamoDB ledger with a pause before each conditional write, like LocalLedger's `beforeCommit`. */
function pausedDynamo(ledger: Ledger, pause: () => Promise<void>): Ledger {
  return { get: (key) => ledger.get(key), put: async (...args) => (await pause(), ledger.put(...args)), describe: () => ledger.describe() };
}

describe.each(adapters)('the %s ledger', (name, make) => {
  const prefix = name.replace(/\W/g, '');

  it('writes only on the version it was given, and 0 means "only if absent"', async () => {
    const ledger = make();
    const key = `${prefix}/cas`;
    expect(await ledger.get(key)).toBeUndefined();
    expect(await ledger.put(key, { n: 1 }, 0)).toBe(true);
    expect(await ledger.put(key, { n: 'again' }, 0)).toBe(false);
    expect(await ledger.get(key)).toEqual({ value: { n: 1 }, version: 1 });
    expect(await ledger.put(key, { n: 2 }, 1)).toBe(true);
    expect(await ledger.put(key, { n: 'stale' }, 1)).toBe(false);
    expect(await ledger.get(key)).toEqual({ value: { n: 2 }, version: 2 });
  });

  it('lets exactly one of 10 concurrent writers on the same version win', async () => {
    const ledger = make();
    const key = `${prefix}/race`;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => make().put(key, { writer: i }, 0)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await ledger.get(key)).toEqual({ value: { writer: winner }, version: 1 });
  });

  it('lets a writer paused between its compare and its commit neither win nor move the entry backward', async () => {
    for (const newerWrites of [1, 9]) {
      const key = `${prefix}/paused-${newerWrites}`;
      const ledger = make();
      expect(await ledger.put(key, { latest: 'run-1' }, 0)).toBe(true);
      let resume!: () => void;
      let paused!: () => void;
      const reachedCommit = new Promise<void>((resolve) => (paused = resolve));
      const gate = new Promise<void>((resolve) => (resume = resolve));
      const slow = name === 'DynamoDB' ? pausedDynamo(make(), () => (paused(), gate)) : new LocalLedger(join(both.dir(), 'ledger'), { beforeCommit: () => (paused(), gate) });
      const stale = slow.put(key, { latest: 'run-0-stale' }, 1);
      await reachedCommit;
      // Meanwhile newer runs move the entry on (9 writes clear the paused writer's version number away).
      for (let v = 1; v <= newerWrites; v++) expect(await ledger.put(key, { latest: `run-${v + 1}` }, v)).toBe(true);
      resume();
      expect(await stale).toBe(false);
      expect(await ledger.get(key)).toEqual({ value: { latest: `run-${newerWrites + 1}` }, version: newerWrites + 1 });
    }
  });

  describe('run leases on it', () => {
    let clock = new Date('2026-11-23T06:00:00Z');
    const now = () => clock;
    const terms = { clock: now, log: silentLog, leaseMs: 60_000 };
    const acquire = (runId: string) => RunLease.acquire({ ...terms, ledger: make() }, { report: `${prefix}-report`, runId });

    it('stops a second attempt while the lease is live, hands over an expired one with its debris', async () => {
      clock = new Date('2026-11-23T06:00:00Z');
      const first = await acquire('r1');
      if (first.kind !== 'acquired') throw new Error('expected a lease');
      await first.lease.renew({ addKeys: ['a/risks.csv'] });
      await expect(acquire('r1')).rejects.toThrow(RunInProgressError);
      await expect(acquire('r1')).rejects.toThrow(/run "r1" of report ".*" is in progress/);
      clock = new Date('2026-11-23T06:01:01Z');
      const second = await acquire('r1');
      expect(second).toMatchObject({ kind: 'acquired', takenOver: true, debris: ['a/risks.csv'], startedAt: new Date('2026-11-23T06:00:00Z') });
      // The first attempt finds out at its next renewal, and does not delete what is no longer its own.
      await expect(first.lease.renew()).rejects.toThrow(LeaseLostError);
      expect(await first.lease.held()).toBe(false);
      expect(await first.lease.release([], ['a/risks.csv'])).toBe(false);
      if (second.kind !== 'acquired') throw new Error('expected a lease');
      await second.lease.complete('a/manifest.json');
      clock = new Date('2026-11-24T06:00:00Z');
      expect(await acquire('r1')).toEqual({ kind: 'complete', startedAt: new Date('2026-11-23T06:00:00Z'), manifestKey: 'a/manifest.json' });
    });

    it('keeps a long healthy run leased through its renewals', async () => {
      clock = new Date('2026-11-23T06:00:00Z');
      const held = await acquire('long');
      if (held.kind !== 'acquired') throw new Error('expected a lease');
      for (let minute = 1; minute <= 10; minute++) {
        clock = new Date(Date.parse('2026-11-23T06:00:00Z') + minute * 45_000);
        await held.lease.renew();
        await expect(acquire('long')).rejects.toThrow(RunInProgressError);
      }
    });

    it('renews the lease in the background while the run streams, and stops when told', async () => {
      clock = new Date('2026-11-23T06:00:00Z');
      const held = await acquire('heartbeat');
      if (held.kind !== 'acquired') throw new Error('expected a lease');
      const ledger = make();
      const key = 'run/' + encodeURIComponent(`${prefix}-report`) + '/heartbeat';
      const before = (await ledger.get(key))!.version;
      // Past the first expiry: only a renewal by the heartbeat keeps the run from being taken over.
      clock = new Date('2026-11-23T06:00:50Z');
      held.lease.startHeartbeat(1);
      while ((await ledger.get(key))!.version === before) await new Promise((resolve) => setImmediate(resolve));
      held.lease.stopHeartbeat();
      await held.lease.settled();
      clock = new Date('2026-11-23T06:01:30Z');
      await expect(acquire('heartbeat')).rejects.toThrow(RunInProgressError);
      held.lease.check();
    });

    it('lets a retry start at once after a failed attempt released the lease', async () => {
      clock = new Date('2026-11-23T06:00:00Z');
      const failed = await acquire('released');
      if (failed.kind !== 'acquired') throw new Error('expected a lease');
      await failed.lease.renew({ addKeys: ['x/a.csv', 'x/b.csv'] });
      expect(await failed.lease.release(['x/b.csv'], ['x/a.csv'])).toBe(true);
      expect(await acquire('released')).toMatchObject({ kind: 'acquired', takenOver: true, debris: ['x/b.csv'] });
    });
  });
});

describe('the DynamoDB ledger', () => {
  it('sets the TTL attribute so old leases and jobs expire', async () => {
    const ledger = new DynamoDbLedger({ client: both.dynamo().client, tableName: both.dynamo().tableName });
    await ledger.put('ttl/one', { x: 1 }, 0, { expiresAt: new Date('2026-12-01T00:00:00Z') });
    const { Item } = await both.dynamo().client.send(new GetItemCommand({ TableName: both.dynamo().tableName, Key: { pk: { S: 'ttl/one' } } }));
    expect(Item?.expiresAt).toEqual({ N: String(Date.parse('2026-12-01T00:00:00Z') / 1000) });
  });

  it('names the table and the key when the table does not exist', async () => {
    const ledger = new DynamoDbLedger({ client: both.dynamo().client, tableName: 'no-such-table' });
    await expect(ledger.get('run/x')).rejects.toThrow(/could not read run\/x from the run ledger dynamodb:no-such-table: ResourceNotFoundException/);
  });
});

describe('the local directory ledger', () => {
  it('answers a won write as won when a quicker writer built on it before the first one looked', async () => {
    const dir = join(both.dir(), 'ledger');
    const key = 'local/built-on';
    const other = new LocalLedger(dir);
    expect(await other.put(key, { n: 1 }, 0)).toBe(true);
    let landed!: () => void;
    const published = new Promise<void>((resolve) => (landed = resolve));
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => (resume = resolve));
    const first = new LocalLedger(dir, { afterCommit: () => (landed(), gate) });
    const write = first.put(key, { n: 2 }, 1);
    await published;
    // Between the first writer's commit and its look for newer versions, another builds on version 2.
    expect(await other.get(key)).toEqual({ value: { n: 2 }, version: 2 });
    expect(await other.put(key, { n: 3 }, 2)).toBe(true);
    resume();
    expect(await write).toBe(true);
    expect(await other.get(key)).toEqual({ value: { n: 3 }, version: 3 });
  });
});
