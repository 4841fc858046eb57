import { errorMessage } from '../../shared/core/errors';
import { errorChain, type InvocationFailure } from './async-invocations';
import { SCHEDULED_RUNS } from '../../shared/core/names';

/**
 * A stand-in of an SQS queue with a Lambda event source of `batchSize: 1` and a maximum concurrency, as
 * a fleet meets it (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html): every
 * message is sent at the same instant; at most `maxConcurrency` are being handled at once, and a slot
 * freed takes the next visible message at once (the pollers keep polling). A receive starts the
 * message's visibility timeout; a receive that fails (the handler throws or answers false: a batch item
 * failure) leaves the message to reappear when that timeout ends; after `maxReceiveCount` failed
 * receives it goes to the dead-letter queue (counted `deadLettered`). Messages are taken in the order
 * they became visible, as a standard queue roughly does.
 *
 * Not modelled: the account's own cap (the stack keeps the event source's maximum under what is free,
 * infra/config.ts), the pollers' scaling up (60 more a minute: reached at once for these caps), and
 * SQS's at-least-once duplicates (the job's run id and message claims take those, tested elsewhere).
 *
 * Time is the timers' and `now`'s (the bench: the wall clock; the tests: vitest's fake timers, which fake
 * setTimeout and Date.now): a wait for a message to reappear is cancelled when a receive ends first, so no
 * timer of up to the visibility timeout outlives the fleet.
 */
export interface QueueInvocationOptions {
  readonly maxConcurrency: number;
  /** How long a received message stays invisible, ms (the stack: 6 × the function's timeout). */
  readonly visibilityTimeoutMs?: number;
  /** Receives before the dead-letter queue (the stack's redrive policy). */
  readonly maxReceiveCount?: number;
  readonly now?: () => number;
}

export interface QueueStats {
  /** Receives, first ones and retries. */
  readonly receives: number;
  /** Failed receives whose message came back. */
  readonly retried: number;
  /** Messages moved to the dead-letter queue after their last failed receive. */
  readonly deadLettered: number;
  /** Every failed receive that threw, in order: the message (as a string), its receive count, when (ms after the send) and why. */
  readonly failures: readonly InvocationFailure[];
}

/** One receive of a message: resolve true (or nothing) to delete it, false or throw to have it back later. */
export type QueueHandler<E> = (event: E, receiveCount: number) => Promise<boolean | void>;

export const SQS_DEFAULTS = { visibilityTimeoutMs: 6 * 15 * 60_000, maxReceiveCount: SCHEDULED_RUNS.maxReceiveCount } as const;

interface Message<E> {
  readonly event: E;
  receives: number;
  visibleAt: number;
}

export async function queueInvocations<E>(events: readonly E[], handler: QueueHandler<E>, options: QueueInvocationOptions): Promise<QueueStats> {
  const now = options.now ?? (() => Date.now());
  const visibility = options.visibilityTimeoutMs ?? SQS_DEFAULTS.visibilityTimeoutMs;
  const maxReceives = options.maxReceiveCount ?? SQS_DEFAULTS.maxReceiveCount;
  const sent = now();
  // Not yet deleted nor dead-lettered and not being handled; a failed one is back here with a later visibleAt.
  const waiting: Message<E>[] = events.map((event) => ({ event, receives: 0, visibleAt: sent }));
  let inFlight = 0;
  const stats = { receives: 0, retried: 0, deadLettered: 0, failures: [] as InvocationFailure[] };
  // Woken when a receive ends: a slot that found nothing may find its message back, or the queue empty.
  let ended: () => void = () => undefined;
  let receiveEnded = new Promise<void>((resolve) => (ended = resolve));

  const takeVisible = (): Message<E> | undefined => {
    let best = -1;
    for (let i = 0; i < waiting.length; i++) if (waiting[i]!.visibleAt <= now() && (best < 0 || waiting[i]!.visibleAt < waiting[best]!.visibleAt)) best = i;
    return best < 0 ? undefined : waiting.splice(best, 1)[0];
  };

  const receive = async (message: Message<E>): Promise<void> => {
    message.receives += 1;
    stats.receives += 1;
    const receivedAt = now();
    let done = false;
    try {
      done = (await handler(message.event, message.receives)) !== false;
    } catch (error) {
      stats.failures.push({ event: String(message.event), attempt: message.receives, atMs: now() - sent, error: errorChain(error) });
      console.warn(`queue: receive ${message.receives} of a message failed: ${errorMessage(error)}`);
    }
    if (done) return;
    if (message.receives >= maxReceives) {
      stats.deadLettered += 1;
      return;
    }
    stats.retried += 1;
    message.visibleAt = receivedAt + visibility;
    waiting.push(message);
  };

  const slot = async (): Promise<void> => {
    for (;;) {
      const message = takeVisible();
      if (message) {
        inFlight += 1;
        try {
          await receive(message);
        } finally {
          inFlight -= 1;
          const wake = ended;
          receiveEnded = new Promise<void>((resolve) => (ended = resolve));
          wake();
        }
        continue;
      }
      if (waiting.length === 0 && inFlight === 0) return;
      // Nothing visible: wait for the next message to reappear, or for a receive to end (it may put one back).
      const next = waiting.length === 0 ? undefined : Math.min(...waiting.map((m) => m.visibleAt));
      await (next === undefined ? receiveEnded : untilOrEnded(next - now(), receiveEnded));
    }
  };

  await Promise.all(Array.from({ length: options.maxConcurrency }, slot));
  return stats;
}

/** Resolves after `ms` or when `ended` does, whichever is first; the timer does not outlive it. */
async function untilOrEnded(ms: number, ended: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  } finally {
    clearTimeout(timer);
  }
}
