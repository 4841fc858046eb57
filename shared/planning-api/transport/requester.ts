/**
 * Request and response handling of the planning API client: one call with retries, backoff and
 * concurrency slots, metrics events, error mapping (404, 401, 403, exhausted retries) and the v1 and
 * legacy envelopes. The operations themselves (paths, schemas, options) are in ./client.ts.
 */
import type { z } from 'zod';
import { NotFoundError } from '../../core/errors';
import type { Log } from '../../core/logger';
import { retrying, type Sleep } from '../../core/retry/retry';
import { isRetryable, parseRetryAfter } from '../../core/retry/retry-policy';
import type { ConcurrencyLimiter } from './concurrency';
import type { RequestPace } from './pace';
import { deadlineError, documentedError, exhaustedError, httpError, outcomeFailure, tooLargeError } from '../client-errors';
import { joinUrl, type HttpMethod, type HttpTransport } from './http-transport';
import { pageV1, type ListLimits } from '../paging';
import { groupsOfOperation, groupsPhrase } from '../api-groups';
import { parseJsonBody, parseRecord, readListEnvelope, readSingleEnvelope, type EnvelopeKey } from '../parse';
import { backoffDelay, retryDelay, type RetryOptions } from './retry';

/** One attempt of one request, for metrics. Never carries headers or credentials. */
export interface RequestEvent {
  operation: string;
  method: HttpMethod;
  /** Path and query of the request (no host, no credentials). */
  path: string;
  /** HTTP status; undefined when no response arrived (timeout, network error). */
  status: number | undefined;
  outcome: 'ok' | 'http-error' | 'timeout' | 'network-error' | 'too-large';
  /** 1 for the first attempt. */
  attempt: number;
  durationMs: number;
  /** True when this attempt failed and another one follows. */
  retried: boolean;
}

type Api = 'v1' | 'legacy';

/** A call with where it went, for the errors of no answer: which field of the credentials, its origin, the groups it serves. */
function addressed(call: Call, url: URL): Call & { address: string } {
  const field = call.api === 'v1' ? 'baseUrl' : 'legacyBaseUrl';
  return { ...call, address: `${field} ${url.origin} (${groupsPhrase(groupsOfOperation(call.api, call.operation))})` };
}

export interface Call {
  operation: string;
  api: Api;
  method: HttpMethod;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** The 404 sentence, e.g. `risk "r-9" was not found`. */
  notFound?: string | undefined;
  /** What a 403 may be about, e.g. `board "b-1"`. */
  subject?: string | undefined;
  /** Told the size in bytes of the answer that succeeded (the board items' read-ahead budgets by it). */
  onAnswer?: ((bytes: number) => void) | undefined;
}

export interface RequesterOptions {
  transport: HttpTransport;
  /** v1 API base URL (without `/api/v1`). */
  baseUrl: string;
  /** Legacy API base URL, including `/api/{companyPrefix}`. */
  legacyBaseUrl: string;
  limiter: ConcurrencyLimiter;
  /** The tenant's rate, shared with its other runs (pace.ts); undefined: this client paces only itself. */
  pace?: RequestPace | undefined;
  log: Log;
  retry: RetryOptions;
  /** v1 page size. */
  pageLimit: number;
  sleep: Sleep;
  random: () => number;
  now: () => number;
  onRequest: ((event: RequestEvent) => void) | undefined;
  /** Overall deadline in ms on the `now` clock; undefined for none. */
  deadline: number | undefined;
  /** How far one list may page before it is taken for endless (paging.ts). */
  listLimits: Omit<ListLimits, 'subject'>;
}

/** Sends the client's calls; one per client, holding what every call shares. */
export class PlanningApiRequester {
  readonly #transport: HttpTransport;
  readonly #baseUrl: string;
  readonly #legacyBaseUrl: string;
  readonly #limiter: ConcurrencyLimiter;
  readonly #pace: RequestPace | undefined;
  readonly #log: Log;
  readonly #retry: RetryOptions;
  readonly #pageLimit: number;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #onRequest: ((event: RequestEvent) => void) | undefined;
  readonly #deadline: number | undefined;
  readonly #companyPrefix: string;
  readonly #listLimits: Omit<ListLimits, 'subject'>;

  constructor(options: RequesterOptions) {
    this.#transport = options.transport;
    this.#baseUrl = options.baseUrl;
    this.#legacyBaseUrl = options.legacyBaseUrl;
    this.#limiter = options.limiter;
    this.#pace = options.pace;
    this.#log = options.log;
    this.#retry = options.retry;
    this.#pageLimit = options.pageLimit;
    this.#sleep = options.sleep;
    this.#random = options.random;
    this.#now = options.now;
    this.#onRequest = options.onRequest;
    this.#deadline = options.deadline;
    this.#listLimits = options.listLimits;
    // The legacy base URL ends in /api/<companyPrefix>; the prefix is named when the server refuses it.
    this.#companyPrefix = decodeURIComponent(options.legacyBaseUrl.replace(/\/+$/, '').split('/').pop() ?? '');
  }

  listV1<T extends { id: string }>(
    operation: string,
    path: string,
    key: EnvelopeKey,
    schema: z.ZodType<T, unknown>,
    extra: { notFound?: string; subject?: string; noFields?: boolean },
  ): AsyncGenerator<T, void, undefined> {
    return pageV1<T>({
      operation,
      pageLimit: this.#pageLimit,
      // Read ahead as far as the limiter lets requests run, and no further: pages that could not be
      // in flight anyway would only be held in memory.
      window: this.#limiter.limit,
      log: this.#log,
      idOf: (record) => record.id,
      limits: { ...this.#listLimits, subject: extra.subject },
      fetchPage: async (startAt, pageLimit) => {
        let bytes = 0;
        const body = await this.call({
          operation,
          api: 'v1',
          method: 'GET',
          path,
          query: {
            fields: extra.noFields ? undefined : 'all',
            startAt: String(startAt),
            pageLimit: String(pageLimit),
          },
          notFound: extra.notFound,
          subject: extra.subject,
          onAnswer: (n) => (bytes = n),
        });
        const envelope = readListEnvelope(body, key, operation);
        const records = envelope.records.map((raw, i) => parseRecord(schema, raw, operation, { index: startAt + i }));
        return { records, total: envelope.total, bytes };
      },
    });
  }

  async getV1<T>(
    operation: string,
    path: string,
    key: EnvelopeKey,
    schema: z.ZodType<T, unknown>,
    extra: { notFound: string; subject: string },
  ): Promise<T> {
    const body = await this.call({ operation, api: 'v1', method: 'GET', path, query: { fields: 'all' }, ...extra });
    const raw = readSingleEnvelope(body, key, operation);
    // An empty result for a single record means the same as a 404.
    if (raw === undefined) throw new NotFoundError(`${operation}: ${extra.notFound} (empty result)`, { operation });
    return parseRecord(schema, raw, operation);
  }

  async listLegacy<T>(call: Call, schema: z.ZodType<T, unknown>): Promise<T[]> {
    const body = await this.call(call);
    const { records } = readListEnvelope(body, 'data', call.operation);
    return records.map((raw, index) => parseRecord(schema, raw, call.operation, { index }));
  }

  /** Milliseconds left before the overall deadline (Infinity without one). */
  #remainingMs(): number {
    return this.#deadline === undefined ? Number.POSITIVE_INFINITY : this.#deadline - this.#now();
  }

  /**
   * One request with retries. Each attempt takes a limiter slot only while it is on the wire; the
   * backoff sleep happens outside the slot so a throttled request does not block the others.
   * The overall deadline caps everything: an attempt's time limit is cut to what is left, and no
   * retry starts (or sleeps) past it, so a hung server costs the deadline, not attempts × timeout.
   */
  async call(call: Call): Promise<unknown> {
    const base = call.api === 'v1' ? `${this.#baseUrl.replace(/\/+$/, '')}/api/v1` : this.#legacyBaseUrl;
    const url = joinUrl(base, call.path, call.query);
    const path = `${url.pathname}${url.search}`;
    const context = {
      redact: (t: string) => this.#transport.redact(t),
      timeoutMs: this.#transport.timeoutMs,
      maxResponseBytes: this.#transport.maxResponseBytes,
    };

    return retrying<unknown>(
      async (attempt, last) => {
        await this.#waitForPace(call, attempt);
        // Checked again once a slot is free: waiting for one can take long when the server hangs.
        let outOfTime = false;
        const outcome = await this.#limiter.run(() => {
          const remaining = this.#remainingMs();
          if (remaining <= 0) {
            outOfTime = true;
            return Promise.resolve({ kind: 'timeout', durationMs: 0 } as const);
          }
          return this.#transport.send({ method: call.method, url, body: call.body, timeoutMs: remaining });
        });
        if (outOfTime) throw deadlineError(call, attempt - 1);
        const status = outcome.kind === 'response' || outcome.kind === 'too-large' ? outcome.status : undefined;

        const report = { operation: call.operation, method: call.method, path, status, attempt, durationMs: outcome.durationMs };

        if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
          this.#emit({ ...report, outcome: 'ok', retried: false });
          this.#log.debug('planning API request', report);
          call.onAnswer?.(outcome.bytes);
          return { value: parseJsonBody(outcome.text, call.operation, (t) => this.#transport.redact(t)) };
        }

        if (outcome.kind === 'too-large') {
          this.#emit({ ...report, outcome: 'too-large', retried: false });
          throw tooLargeError(call, outcome, context);
        }
        const documented = outcome.kind === 'response' ? documentedError(call, outcome, context, this.#callFacts(call)) : undefined;
        if (documented) {
          this.#emit({ ...report, outcome: 'http-error', retried: false });
          throw documented;
        }
        const retryable = isRetryable(outcomeFailure(outcome));
        const retried = retryable && !last;
        const failure = outcome.kind === 'response' ? 'http-error' : outcome.kind === 'timeout' ? 'timeout' : 'network-error';
        this.#emit({ ...report, outcome: failure, retried });
        if (!retryable) throw outcome.kind === 'response' ? httpError(call, outcome, context) : exhaustedError(addressed(call, url), outcome, attempt, context);
        if (outcome.kind === 'timeout' && this.#remainingMs() <= 0) throw deadlineError(call, attempt);
        if (!retried) throw exhaustedError(addressed(call, url), outcome, attempt, context);

        const delayMs =
          outcome.kind === 'response'
            ? retryDelay(attempt, parseRetryAfter(outcome.headers.get('retry-after'), this.#now()), this.#retry, this.#random)
            : backoffDelay(attempt, this.#retry, this.#random);
        if (status === 429) await this.#holdOffPace(delayMs);
        // A wait that would end past the deadline is not started (retrying): the next attempt could not finish.
        return {
          again: {
            delayMs,
            late: () => deadlineError(call, attempt),
            beforeWait: () => this.#log.warn('planning API request failed; retrying', { ...report, failure, delayMs }),
          },
        };
      },
      { attempts: this.#retry.maxAttempts, sleep: this.#sleep, remainingMs: () => this.#remainingMs() },
    );
  }

  /**
   * Waits for the tenant's next free moment (pace.ts) before an attempt, outside the limiter's slot so
   * a run queued behind its tenant's other runs holds nothing. A moment past the deadline is not waited for.
   */
  async #waitForPace(call: Call, attempt: number): Promise<void> {
    if (!this.#pace) return;
    const waitMs = (await this.#pace.reserve()) - this.#now();
    if (waitMs <= 0) return;
    if (waitMs >= this.#remainingMs()) throw deadlineError(call, attempt - 1);
    await this.#sleep(waitMs);
  }

  /** A 429 tells every run of the tenant to wait, not only this one: the pace holds everyone off until the retry. */
  async #holdOffPace(delayMs: number): Promise<void> {
    try {
      await this.#pace?.holdOff(this.#now() + delayMs);
    } catch (error) {
      // The retry still waits its own delay; the others only meet the 429 themselves.
      this.#log.warn('could not hold the tenant\'s pace off after a 429', { error: String(error) });
    }
  }

  /** What the documented errors name: the board of the call and the prefix of the legacy address. */
  #callFacts(call: Call): { boardId: string | undefined; companyPrefix: string; legacy: boolean } {
    const fromBody = call.body !== null && typeof call.body === 'object' ? (call.body as { boardId?: unknown }).boardId : undefined;
    const boardId = typeof fromBody === 'string' ? fromBody : call.query?.boardId;
    return { boardId, companyPrefix: this.#companyPrefix, legacy: call.api === 'legacy' };
  }

  #emit(event: RequestEvent): void {
    if (!this.#onRequest) return;
    try {
      this.#onRequest(event);
    } catch (error) {
      this.#log.warn('onRequest hook failed', { operation: event.operation, error: String(error) });
    }
  }
}
