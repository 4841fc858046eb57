/** Public surface of the planning API client. Import from here, not from the modules. */
export {
  PlanningApiClient,
  MAX_PAGE_LIMIT,
  API_BOARD_ITEMS_PAGE_SIZE,
  type PlanningApiClientOptions,
  type ListBoardsOptions,
  type PiObjectiveGroupsOptions,
  type BoardItemsOptions,
  type BoardItemsPage,
  type BoardStatuses,
} from './client';
export { resolveClientSettings, type ClientSettings, type ClientSettingsInput } from './client-settings';
export type { RequestEvent } from './transport/requester';
export { createLimiter, type ConcurrencyLimiter } from './transport/concurrency';
export { trackerRef, type TrackerRef, type TrackerFamily, type TrackerItemFields, type TrackerRefOptions } from './tracker-ref';
export {
  DEFAULT_RETRY,
  backoffDelay,
  retryDelay,
  type RetryOptions,
} from './transport/retry';
export { extractErrorText } from './transport/http-transport';
export { credentialsSchema, describeSource, type Credentials } from './credentials';
export * from './schemas';
export { toArray } from '../core/async-iterables';
