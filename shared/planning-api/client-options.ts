import type { Clock } from '../core/clock';
import type { Sleep } from '../core/retry/retry';
import type { Log } from '../core/logger';
import type { ConcurrencyLimiter } from './transport/concurrency';
import type { RequestPace } from './transport/pace';
import type { ClientSettings } from './client-settings';
import type { Credentials } from './credentials';
import type { RequestEvent } from './transport/requester';
import type { RetryOptions } from './transport/retry';

/** What a PlanningApiClient is built from: apart from the client's operations so that client.ts reads as the list of them. */
export interface PlanningApiClientOptions {
  credentials: Credentials;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch | undefined;
  /** One limiter for the whole export, sized by the door (API_CONCURRENCY, resolved once). */
  limiter: ConcurrencyLimiter;
  /** The tenant's rate shared with its other runs (transport/pace.ts); default: none, the limiter alone. */
  pace?: RequestPace | undefined;
  /** The door's log (a command that shows nothing passes silentLog): resolved at the door, as the settings are. */
  log: Log;
  /** Sizes and time limit, resolved once by the client's maker (resolveClientSettings) and passed whole. */
  settings: ClientSettings;
  /**
   * Overall deadline, in epoch ms on `clock`: no request, retry or backoff
   * goes past it; a request then fails with DeadlineExceededError. Default: none.
   */
  deadline?: number | undefined;
  retry?: Partial<RetryOptions>;
  /** Injected for tests: the signal that ends an attempt after timeoutMs (default AbortSignal.timeout). */
  timeoutSignal?: (ms: number) => AbortSignal;
  /** Injected for tests: backoff sleep and jitter source. */
  sleep?: Sleep;
  random?: () => number;
  /** The door's clock: the deadline and Retry-After are times on it. */
  clock: Clock;
  /** Metrics hook, called once per attempt. Errors thrown by it are logged and ignored. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
}
