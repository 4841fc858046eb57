import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerRunLinkLedger, RevocationCache } from '../../../shared/http/run-link-ledger';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { startDynalite, type DynaliteHandle } from '../../support/dynalite';

const now = new Date('2026-11-23T06:00:00Z');
const HOUR = 3_600_000;

let dynamo: DynaliteHandle;
let dir: string;
let n = 0;
beforeAll(async () => {
  dynamo = await startDynalite();
  dir = await mkdtemp(join(tmpdir(), 'run-link-ledger-'));
});
afterAll(async () => {
  await dynamo.close();
  await rm(dir, { recursive: true, force: true });
});

/** Both adapters of the run ledger; every test uses names of its own (`unique`). */
const adapters: [string, () => Ledger][] = [
  ['DynamoDB (dynalite)', () => new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName })],
  ['a local directory', () => new LocalLedger(join(dir, 'ledger'))],
];
const unique = (name: string) => `${name}-${++n}`;

describe.each(adapters)('run links on the run ledger: %s', (_name, make) => {
  it('lets exactly `limit` of 20 concurrent starts of one link through, per window', async () => {
    const ledger = new LedgerRunLinkLedger(make());
    const [a, b] = [unique('link-a'), unique('link-b')];
    const results = await Promise.all(Array.from({ length: 20 }, () => ledger.takeStart(a, now, { limit: 6, windowMs: HOUR })));
    expect(results.filter(Boolean)).toHaveLength(6);
    expect(await ledger.takeStart(b, now, { limit: 6, windowMs: HOUR })).toBe(true);
    expect(await ledger.takeStart(a, new Date(now.getTime() + HOUR), { limit: 6, windowMs: HOUR })).toBe(true);
    // canStart only looks: it never counts.
    expect(await ledger.canStart(a, now, { limit: 6, windowMs: HOUR })).toBe(false);
    expect(await ledger.canStart(b, now, { limit: 6, windowMs: HOUR })).toBe(true);
    expect(await ledger.canStart(b, now, { limit: 2, windowMs: HOUR })).toBe(true);
    expect(await ledger.takeStart(b, now, { limit: 2, windowMs: HOUR })).toBe(true);
    expect(await ledger.canStart(b, now, { limit: 2, windowMs: HOUR })).toBe(false);
  });

  it('moves a report\'s slot for exactly one of 10 concurrent swaps from the same state', async () => {
    const ledger = new LedgerRunLinkLedger(make());
    const report = unique('acme');
    const slot = (exportId: string) => ({ exportId, startedAt: now.toISOString() });
    const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.swapRun(report, undefined, slot(`export-${i}`))));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const holder = await ledger.currentRun(report);
    expect(holder).toEqual(slot(`export-${wins.indexOf(true)}`));
    expect(await ledger.swapRun(report, 'export-other', slot('export-x'))).toBe(false);
    expect(await ledger.swapRun(report, holder?.exportId, slot('export-next'))).toBe(true);
    expect(await ledger.currentRun(report)).toEqual(slot('export-next'));
    expect(await ledger.currentRun(unique('other'))).toBeUndefined();
  });

  it('revokes for good, idempotently, per link', async () => {
    const ledger = new LedgerRunLinkLedger(make());
    const [a, b] = [unique('link-a'), unique('link-b')];
    expect(await ledger.isRevoked(a)).toBe(false);
    await ledger.revoke(a, now);
    await ledger.revoke(a, new Date(now.getTime() + HOUR));
    expect(await ledger.isRevoked(a)).toBe(true);
    expect(await ledger.isRevoked(b)).toBe(false);
  });
});

describe('revocation cache', () => {
  it('asks the ledger once a minute per link', async () => {
    let reads = 0;
    const local = new LocalLedger(join(dir, 'ledger'));
    const ledger = new LedgerRunLinkLedger({ get: (key) => (reads++, local.get(key)), put: (...args) => local.put(...args), describe: () => local.describe() });
    let clock = now.getTime();
    const cache = new RevocationCache(ledger, () => new Date(clock));
    const link = unique('link');
    expect(await cache.isRevoked(link)).toBe(false);
    await ledger.revoke(link, now);
    const before = reads;
    expect(await cache.isRevoked(link)).toBe(false);
    expect(reads).toBe(before);
    clock += 60_000;
    expect(await cache.isRevoked(link)).toBe(true);
    expect(reads).toBe(before + 1);
  });
});
