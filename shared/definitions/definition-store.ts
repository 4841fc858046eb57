import { BaseProvider } from '@aws-lambda-powertools/parameters/base';
import { GetParameterError } from '@aws-lambda-powertools/parameters/errors';
import { errorMessage, ReportDefinitionError, retryableCause, StorageError } from '../core/errors';
import { runNameCollision, runNamesOf, storedOwnersOf } from '../report/definition/slices';
import type { Storage } from '../storage/storage';
import {
  DEFINITIONS_PREFIX,
  definitionKey,
  parseStoredDefinitionJson,
  reportNameOfKey,
  storedDefinitionText,
  type StoredDefinition,
} from './stored-definition';

/**
 * Reads stored definition objects through the Powertools Parameters provider contract, so caching,
 * maxAge and forceFetch behave as for the secrets: a warm Lambda reads a report's definition at
 * most once per maxAge, and an upload is picked up within it without a redeploy.
 */
class StoredDefinitionProvider extends BaseProvider {
  constructor(private readonly storage: Storage) {
    super({});
  }

  protected async _get(name: string): Promise<string | undefined> {
    const bytes = await this.storage.getObject(definitionKey(name));
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  // A whole listing is never cached: `names()` asks the bucket each time (the CLI and the sync).
  protected _getMultiple(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error('the definitions store lists with names(), not getMultiple'));
  }
}

export interface DefinitionStoreOptions {
  /** How long a definition read is reused: the door's resolved DEFINITIONS_MAX_AGE_SECONDS. */
  readonly maxAgeSeconds: number;
}

/**
 * The stored reports: one JSON object per report under `definitions/` of the definitions bucket (or
 * a local folder). The export Lambdas read the one report a run names; the sync function, the CLI
 * and the tests list, write and delete them.
 */
export class DefinitionStore {
  private readonly provider: StoredDefinitionProvider;
  private readonly maxAgeSeconds: number;

  constructor(
    private readonly storage: Storage,
    options: DefinitionStoreOptions,
  ) {
    this.provider = new StoredDefinitionProvider(storage);
    this.maxAgeSeconds = options.maxAgeSeconds;
  }

  /** The definition (as written) of a stored report, or undefined when there is none. */
  async get(name: string): Promise<unknown> {
    return (await this.read(name))?.definition;
  }

  /**
   * The stored report, validated, or undefined when there is none. `fresh` skips the cache (the sync
   * function acts on what is stored now). Throws ReportDefinitionError naming the object when it
   * is not a valid report.
   */
  async read(name: string, options: { fresh?: boolean } = {}): Promise<StoredDefinition | undefined> {
    if (reportNameOfKey(definitionKey(name)) !== name) return undefined;
    let text: unknown;
    try {
      text = await this.provider.get(name, { maxAge: this.maxAgeSeconds, forceFetch: options.fresh ?? false });
    } catch (error) {
      // Powertools wraps what the store threw; the StorageError (with its `retryable`) is the cause.
      throw error instanceof GetParameterError && error.cause !== undefined ? error.cause : error;
    }
    if (typeof text !== 'string') return undefined;
    const origin = `stored report ${this.storage.describe(definitionKey(name))}`;
    const stored = parseStoredDefinitionJson(text, origin);
    if (stored.parsed.name !== name) {
      const message = `is named "${stored.parsed.name}"; store it as ${definitionKey(stored.parsed.name)}`;
      throw new ReportDefinitionError(`${origin} is invalid:\n  - definition.name: ${message}`, [{ path: 'definition.name', message }]);
    }
    return stored;
  }

  /** Names of the stored reports, sorted. */
  async names(): Promise<string[]> {
    const keys = await this.storage.listKeys(DEFINITIONS_PREFIX);
    return keys.flatMap((key) => reportNameOfKey(key) ?? []).sort();
  }

  /** Stores a validated report under its name (replacing the one there). */
  async put(stored: Pick<StoredDefinition, 'definition' | 'schedule'>): Promise<void> {
    const name = stored.definition.name;
    await this.storage.putObject(definitionKey(name), storedDefinitionText(stored), { contentType: 'application/json' });
    this.provider.clearCache();
  }

  /**
   * Stores every report or, as far as the store lets it, none: what each key holds is read before
   * anything is written, and when a write fails the reports already written get their earlier
   * object back (or are removed when this call added them), so a failed push does not leave half
   * of a set of reports live. The error says what was put back, and what could not be.
   */
  async putAll(reports: readonly Pick<StoredDefinition, 'definition' | 'schedule'>[]): Promise<void> {
    const conflicts = await this.runNameConflicts(reports);
    if (conflicts.length > 0) {
      const issues = conflicts.map((message) => ({ path: 'definition', message }));
      throw new ReportDefinitionError(`nothing stored:\n${issues.map((i) => `  - ${i.message}`).join('\n')}`, issues);
    }
    const before = await Promise.all(reports.map(async (r) => ({ name: r.definition.name, bytes: await this.storage.getObject(definitionKey(r.definition.name)) })));
    const written: typeof before = [];
    for (const [index, stored] of reports.entries()) {
      try {
        await this.put(stored);
      } catch (error) {
        const undone = await this.putBack(written);
        throw new StorageError(`could not store ${stored.definition.name} at ${this.describeReport(stored.definition.name)}: ${errorMessage(error)}\n${undone}`, {
          cause: error,
          retryable: retryableCause(error),
        });
      }
      written.push(before[index]!);
    }
  }

  /**
   * Why `reports` may not be stored beside the stored ones: each run name of theirs (a report's
   * own, its deliveries' `<report>--<delivery>`) that a stored report other than theirs holds, as a
   * sentence naming both. Reports among `reports` replace their stored versions, so only the others count.
   */
  async runNameConflicts(reports: readonly Pick<StoredDefinition, 'definition'>[]): Promise<string[]> {
    const replaced = new Set(reports.map((r) => r.definition.name));
    // A stored report that is not valid never runs, so it holds no name.
    const get = (name: string) => this.get(name).catch((error: unknown) => {
      if (error instanceof ReportDefinitionError) return undefined;
      throw error;
    });
    const conflicts: string[] = [];
    for (const report of reports) {
      for (const owner of runNamesOf(report.definition)) {
        for (const stored of await storedOwnersOf(owner.run, get)) {
          if (!replaced.has(stored.report)) conflicts.push(runNameCollision({ ...stored, origin: `stored at ${this.describeReport(stored.report)}` }, owner));
        }
      }
    }
    return conflicts;
  }

  /** Gives each report written by a failed `putAll` its earlier object back, last first; says what it did. */
  private async putBack(written: readonly { name: string; bytes: Uint8Array | undefined }[]): Promise<string> {
    if (written.length === 0) return 'nothing was stored';
    const done: string[] = [];
    const failed: string[] = [];
    for (const { name, bytes } of [...written].reverse()) {
      try {
        if (bytes) await this.storage.putObject(definitionKey(name), bytes, { contentType: 'application/json' });
        else await this.storage.deleteObjects([definitionKey(name)]);
        done.push(bytes ? `restored ${name} as it was` : `removed ${name}, which this push added`);
      } catch (error) {
        failed.push(`could not put back ${name}: ${errorMessage(error)}`);
      }
    }
    this.provider.clearCache();
    const lines = [...done, ...failed].map((line) => `  - ${line}`).join('\n');
    return failed.length === 0
      ? `put back what was there before:\n${lines}`
      : `put back what was there before, in part:\n${lines}\ncheck the stored reports with: npm run reports -- list`;
  }

  async remove(name: string): Promise<void> {
    await this.storage.deleteObjects([definitionKey(name)]);
    this.provider.clearCache();
  }

  describe(): string {
    return this.storage.describe(DEFINITIONS_PREFIX);
  }

  /** Where one report is stored: `s3://bucket/definitions/x.json`, or the file in a local folder. */
  describeReport(name: string): string {
    return this.storage.describe(definitionKey(name));
  }
}
