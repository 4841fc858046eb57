import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { StorageError, transientAwsFailure } from '../core/errors';
import type { Ledger, LedgerEntry, LedgerPutOptions } from './ledger';

/** Attribute names of the table (the stack creates it with these; see infra/constructs/run-ledger-table.ts). */
export const LEDGER_PARTITION_KEY = 'pk';
export const LEDGER_TTL_ATTRIBUTE = 'expiresAt';

export interface DynamoDbLedgerOptions {
  readonly tableName: string;
  readonly client?: DynamoDBClient;
}

/**
 * The ledger on a DynamoDB table (the Lambdas): one item per key with `version` and the JSON
 * `value`. A put is a PutItem whose ConditionExpression demands the version read before (or no item),
 * so of two writers exactly one wins; the other gets false and decides again. Reads are strongly
 * consistent, so a writer never decides on a stale version. `expiresAt` (epoch seconds) is the
 * table's TTL attribute: finished leases and jobs disappear on their own.
 */
export class DynamoDbLedger implements Ledger {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;

  constructor(options: DynamoDbLedgerOptions) {
    this.client = options.client ?? new DynamoDBClient({});
    this.tableName = options.tableName;
  }

  async get(key: string): Promise<LedgerEntry | undefined> {
    let item;
    try {
      ({ Item: item } = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { [LEDGER_PARTITION_KEY]: { S: key } }, ConsistentRead: true }),
      ));
    } catch (error) {
      throw sdkError(`could not read ${key} from the run ledger ${this.describe()}`, error);
    }
    if (!item) return undefined;
    const version = Number(item.version?.N);
    const text = item.value?.S;
    if (!Number.isInteger(version) || version < 1 || text === undefined) {
      throw new StorageError(`the run ledger item ${key} in ${this.describe()} has no version or value`);
    }
    try {
      return { value: JSON.parse(text) as unknown, version };
    } catch (error) {
      throw new StorageError(`the run ledger item ${key} in ${this.describe()} is not JSON`, { cause: error });
    }
  }

  async put(key: string, value: unknown, expectedVersion: number, options: LedgerPutOptions = {}): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [LEDGER_PARTITION_KEY]: { S: key },
            version: { N: String(expectedVersion + 1) },
            value: { S: JSON.stringify(value) },
            ...(options.expiresAt && { [LEDGER_TTL_ATTRIBUTE]: { N: String(Math.ceil(options.expiresAt.getTime() / 1000)) } }),
          },
          ...(expectedVersion === 0
            ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': LEDGER_PARTITION_KEY } }
            : {
                ConditionExpression: '#version = :expected',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':expected': { N: String(expectedVersion) } },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException')) {
        return false;
      }
      throw sdkError(`could not write ${key} to the run ledger ${this.describe()}`, error);
    }
  }

  describe(): string {
    return `dynamodb:${this.tableName}`;
  }
}

/** A DynamoDB client; AWS_ENDPOINT_URL_DYNAMODB (read by the SDK) points it at a local server in tests. */
export function createDynamoDbClient(): DynamoDBClient {
  return new DynamoDBClient({});
}

function sdkError(what: string, error: unknown): StorageError {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StorageError(`${what}: ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
}
