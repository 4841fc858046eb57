import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { DynamoDbLedger } from '../../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../../shared/ledger/ledger';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { startDynalite, type DynaliteHandle } from './dynalite';

/** Both ledger adapters for one test file: DynamoDB on dynalite (it enforces ConditionExpression) and a local directory. */
export interface BothLedgers {
  /** `[name, make]` for `describe.each`: each `make()` is a new adapter over the same store. */
  readonly adapters: readonly (readonly [string, () => Ledger])[];
  /** The dynalite server, for a test that reads the table itself. */
  readonly dynamo: () => DynaliteHandle;
  /** The local ledger's directory is `join(dir(), 'ledger')`. */
  readonly dir: () => string;
}

/** Starts dynalite and a temporary directory before the file's tests and removes both after them. */
export function bothLedgers(prefix: string): BothLedgers {
  let dynamo: DynaliteHandle | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dynamo = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await dynamo?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const started = () => dynamo ?? (() => { throw new Error('bothLedgers: dynalite is started in beforeAll'); })();
  const folder = () => dir ?? (() => { throw new Error('bothLedgers: the directory is made in beforeAll'); })();
  return {
    adapters: [
      ['DynamoDB', () => new DynamoDbLedger({ client: started().client, tableName: started().tableName })],
      ['local directory', () => new LocalLedger(join(folder(), 'ledger'))],
    ],
    dynamo: started,
    dir: folder,
  };
}
