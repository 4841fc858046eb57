/** Random and injected faults (rate limiting, server errors, slow answers, socket resets, bad 200s). */
import { Rng } from './random';
import type { FaultOptions, InjectedFault, RequestLogEntry } from './types';

/** Default delay of a slow response. */
export const DEFAULT_SLOW_MS = 5000;

/** What to do with one request. */
export type FaultDecision =
  | { kind: 'status'; status: number; retryAfter?: string; tag: NonNullable<RequestLogEntry['fault']> }
  | { kind: 'slow'; delayMs: number; tag: NonNullable<RequestLogEntry['fault']> }
  | { kind: 'reset'; tag: 'injected' }
  | { kind: 'hang'; tag: 'injected' }
  | { kind: 'oversized'; bytes: number; tag: 'injected' }
  | { kind: 'malformed'; tag: 'injected' }
  | { kind: 'repeat'; tag: 'injected' };

/** Default size of an 'oversized' answer: above the exporter's default limit of 64 MiB. */
export const DEFAULT_OVERSIZED_BYTES = 80 * 1024 * 1024;

interface PendingFault {
  fault: InjectedFault;
  remaining: number;
}

const SERVER_ERRORS = [500, 502, 503, 504] as const;

/** Decides per request whether a fault applies. Injected faults come first, in injection order. */
export class FaultController {
  private options: FaultOptions;
  private readonly rng: Rng;
  private readonly pending: PendingFault[] = [];
  /** When the requests of the last second under the rate limit were admitted, oldest first. */
  private readonly admitted: number[] = [];

  constructor(seed: number, options: FaultOptions = {}) {
    this.options = { ...options };
    this.rng = Rng.for(seed, 0xfa017);
  }

  /** Replaces the random fault options (injected faults stay queued). */
  set(options: FaultOptions): void {
    this.options = { ...options };
  }

  /** Queues a deterministic one-off fault. */
  inject(fault: InjectedFault): void {
    const times = fault.times ?? 1;
    if (times > 0) this.pending.push({ fault, remaining: times });
  }

  /** Drops every queued injected fault that has not fired yet. */
  clearInjected(): void {
    this.pending.length = 0;
  }

  /** Whether v1 lists currently ignore startAt (FaultOptions.ignoreStartAt). */
  get ignoresStartAt(): boolean {
    return this.options.ignoreStartAt === true;
  }

  /** Whether one more request would exceed the rate limit in the last second (counted when it does not). */
  private overRateLimit(): boolean {
    const limit = this.options.rateLimit;
    if (!limit) return false;
    const now = (limit.now ?? Date.now)();
    while (this.admitted.length > 0 && this.admitted[0]! <= now - 1000) this.admitted.shift();
    if (this.admitted.length >= limit.perSecond) return true;
    this.admitted.push(now);
    return false;
  }

  /** Decides the fault of one request, or undefined for a normal answer. */
  decide(req: { method: string; path: string; query: URLSearchParams }): FaultDecision | undefined {
    const index = this.pending.findIndex((p) => !p.fault.match || p.fault.match(req));
    if (index >= 0) {
      const entry = this.pending[index];
      if (entry) {
        entry.remaining--;
        if (entry.remaining <= 0) this.pending.splice(index, 1);
        const { status } = entry.fault;
        if (status === 'reset') return { kind: 'reset', tag: 'injected' };
        if (status === 'hang') return { kind: 'hang', tag: 'injected' };
        if (status === 'malformed' || status === 'repeat') return { kind: status, tag: 'injected' };
        if (status === 'oversized') return { kind: 'oversized', bytes: entry.fault.bytes ?? DEFAULT_OVERSIZED_BYTES, tag: 'injected' };
        if (status === 'slow') {
          return { kind: 'slow', delayMs: entry.fault.delayMs ?? this.options.slowMs ?? DEFAULT_SLOW_MS, tag: 'injected' };
        }
        return {
          kind: 'status',
          status,
          tag: 'injected',
          ...(status === 429 ? { retryAfter: entry.fault.retryAfter ?? this.options.retryAfter ?? '0' } : {}),
        };
      }
    }
    if (this.overRateLimit()) return { kind: 'status', status: 429, retryAfter: '1', tag: '429' };
    const { rate429 = 0, rate5xx = 0, rateSlow = 0 } = this.options;
    if (rate429 + rate5xx + rateSlow <= 0) return undefined;
    const r = this.rng.next();
    if (r < rate429) return { kind: 'status', status: 429, retryAfter: this.options.retryAfter ?? '0', tag: '429' };
    if (r < rate429 + rate5xx) return { kind: 'status', status: this.rng.pick(SERVER_ERRORS), tag: '5xx' };
    if (r < rate429 + rate5xx + rateSlow) return { kind: 'slow', delayMs: this.options.slowMs ?? DEFAULT_SLOW_MS, tag: 'slow' };
    return undefined;
  }
}
