import { describe, expect, it } from 'vitest';
import { PlanningApiError } from '../../../shared/core/errors';
import { HTTP_RETRY_CASES, NOT_HTTP, type HttpCase } from '../../support/retry-cases';
import { rejectionOf } from '../../support/rejection';
import { sendJson, useTestClient, type Handler } from './test-server';

const clientFor = useTestClient();

/** A server that ends every exchange as `exchange` says; a hang is ended by the attempt's time limit. */
function serverPlaying(exchange: HttpCase, timeOutCurrentAttempt: () => void): Handler {
  return (_req, res) => {
    if ('status' in exchange) sendJson(res, exchange.status, { error: 'scripted failure' });
    else if (exchange.fault === 'reset') res.socket?.destroy();
    else if (exchange.fault === 'malformed') res.socket?.end(NOT_HTTP);
    else timeOutCurrentAttempt();
  };
}

describe('the planning client retries exactly what the retry policy retries, and its error says so', () => {
  it.each(HTTP_RETRY_CASES)('$name', async ({ rule, exchange }) => {
    const sleeps: number[] = [];
    const attempts: AbortController[] = [];
    const { client, server } = await clientFor(
      serverPlaying(exchange, () => attempts.at(-1)?.abort(new DOMException('timed out', 'TimeoutError'))),
      {
        retry: { maxAttempts: 2, baseDelayMs: 10 },
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
        random: () => 0.5,
        clock: () => new Date(0),
        // Attempts end when the server says so (a hang), never by a clock.
        timeoutSignal: () => {
          attempts.push(new AbortController());
          return attempts.at(-1)!.signal;
        },
      },
    );
    const error = await rejectionOf(client.getRisk('r-1'));
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as PlanningApiError).retryable).toBe(rule.retryable);
    expect(server.requests).toHaveLength(rule.retryable ? 2 : 1);
    expect(sleeps).toEqual(rule.retryable ? [5] : []);
  });
});
