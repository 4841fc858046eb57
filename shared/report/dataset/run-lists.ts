import { toArray } from '../../core/async-iterables';
import { errorMessage, PlanningApiError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Board, Collection, PortfolioTheme, RiskRegister, StrategicTheme } from '../../planning-api/schemas';
import type { PlanIssue } from './plan-issue';
import type { PlanningSource } from './planning-source';
import { RepeatedRecords } from './repeated-records';

/** A list of the legacy address, or the one problem that kept it from being read (a refused company prefix). */
export type Listed<T> = { readonly records: readonly T[]; readonly issue?: undefined } | { readonly records?: undefined; readonly issue: PlanIssue };

/**
 * The list calls of one run (registers, portfolio and strategic themes, collections, boards): what
 * the selectors of every dataset are resolved against in the run's plan (export-plan.ts). Each list
 * is asked once per run however many datasets read it (the PI objectives and the board items both
 * read the boards), and its repeated entries are dropped once, the first kept (repeated-records.ts).
 * The datasets then use what the plan resolved and never list again.
 */
export class RunLists {
  readonly #source: PlanningSource;
  readonly #log: Log;
  readonly #companyPrefix: string | undefined;
  readonly #repeats = new RepeatedRecords();
  readonly #asked = new Map<string, Promise<unknown>>();

  constructor(source: PlanningSource, log: Log, companyPrefix?: string) {
    this.#source = source;
    this.#log = log;
    this.#companyPrefix = companyPrefix;
  }

  /** The repeated list entries dropped, for the manifest (summary.duplicatesDropped). */
  figures(): { duplicatesDropped?: Record<string, number> } {
    return this.#repeats.figures();
  }

  registers(): Promise<readonly RiskRegister[]> {
    return this.#once('registers', async () => this.#unique(await toArray(this.#source.listRiskRegisters()), 'registers'));
  }

  portfolioThemes(): Promise<readonly PortfolioTheme[]> {
    return this.#once('portfolio-themes', async () => this.#unique(await toArray(this.#source.listPortfolioThemes()), 'portfolio-themes'));
  }

  strategicThemes(): Promise<readonly StrategicTheme[]> {
    return this.#once('strategic-themes', async () => this.#unique(await toArray(this.#source.listStrategicThemes()), 'strategic-themes'));
  }

  /** The portfolio themes each strategic theme belongs to (by theme id), in the order the answers came. */
  membership(): Promise<ReadonlyMap<string, readonly PortfolioTheme[]>> {
    return this.#once('membership', async () => {
      const membership = new Map<string, PortfolioTheme[]>();
      await Promise.all(
        (await this.portfolioThemes()).map(async (portfolio) => {
          for await (const theme of this.#source.listPortfolioStrategicThemes(portfolio.id)) {
            membership.set(theme.id, [...(membership.get(theme.id) ?? []), portfolio]);
          }
        }),
      );
      return membership;
    });
  }

  collections(): Promise<Listed<Collection>> {
    return this.#once('collections', () => this.#legacy('collections', () => this.#source.listCollections()));
  }

  /** Every visible board (each once), or those of some collections (as the API answers). */
  boards(collectionIds?: readonly string[]): Promise<Listed<Board>> {
    if (collectionIds === undefined) {
      return this.#once('boards', () => this.#legacy('boards', async () => this.#unique(await this.#source.listBoards(), 'boards')));
    }
    return this.#once(`boards of ${collectionIds.join(',')}`, () => this.#legacy('boards', () => this.#source.listBoards({ collectionIds })));
  }

  #once<T>(key: string, ask: () => Promise<T>): Promise<T> {
    let asked = this.#asked.get(key) as Promise<T> | undefined;
    if (!asked) {
      asked = ask();
      this.#asked.set(key, asked);
    }
    return asked;
  }

  /** The list without its repeated entries, warned of once. */
  #unique<T extends { readonly id: string }>(records: readonly T[], what: string): T[] {
    const kept = this.#repeats.unique(records, (r) => r.id, what);
    this.#repeats.warn(this.#log, what);
    return kept;
  }

  /**
   * A legacy list, or the company prefix as the problem: the collections and boards operations take
   * no id, so a 404 can only mean the address, that is the prefix of the credentials, is wrong.
   */
  async #legacy<T>(what: string, ask: () => Promise<readonly T[]>): Promise<Listed<T>> {
    try {
      return { records: await ask() };
    } catch (error) {
      if (!(error instanceof PlanningApiError) || error.status !== 404) throw error;
      this.#log.warn('the legacy address refused the company prefix', { list: what, error: errorMessage(error) });
      const prefix = this.#companyPrefix === undefined ? '' : ` "${this.#companyPrefix}"`;
      return {
        issue: {
          path: 'credentials.companyPrefix',
          message: `the planning API does not accept the company prefix${prefix} of the credentials: the list of ${what} answered 404. ` +
            "Set companyPrefix in the credentials to the prefix of your company's login address (https://<companyPrefix>.…), as your administrator gives it.",
        },
      };
    }
  }
}
