import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postWebhook } from '../../../shared/channels/webhook-post';
import { ChannelDeliveryError } from '../../../shared/core/errors';
import { rejectionOf } from '../../support/rejection';
import { HTTP_RETRY_CASES, type HttpCase } from '../../support/retry-cases';
import { startWebhookRecorder, type ScriptedAnswer, type WebhookRecorder } from '../../support/webhook-recorder';

function answerPlaying(exchange: HttpCase): ScriptedAnswer {
  if ('status' in exchange) return { status: exchange.status, body: 'scripted_failure' };
  if (exchange.fault === 'reset') return { status: 0, reset: true };
  if (exchange.fault === 'malformed') return { status: 0, malformed: true };
  return { status: 0, hang: true };
}

describe('the webhook poster retries exactly what the retry policy retries, and its error says so', () => {
  let hook: WebhookRecorder;
  beforeEach(async () => {
    hook = await startWebhookRecorder();
  });
  afterEach(async () => {
    await hook.close();
  });

  it.each(HTTP_RETRY_CASES)('$name', async ({ rule, exchange }) => {
    const answer = answerPlaying(exchange);
    hook.script(answer, answer);
    const waits: number[] = [];
    // A hung attempt ends once the webhook has its post, by the test, not by a clock; others never time out.
    const timeoutSignal = (): AbortSignal => {
      const attempt = new AbortController();
      const arrived = hook.posts.length + 1;
      if (answer.hang) void hook.waitForPosts(arrived).then(() => attempt.abort(new DOMException('timed out', 'TimeoutError')));
      return attempt.signal;
    };
    const error = await rejectionOf(
      postWebhook(hook.url('slack/T000/B000/token'), { text: 'x' }, 'Slack', {
        attempts: 2,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
        clock: () => new Date('2026-11-23T06:00:00Z'),
        timeoutSignal,
      }),
    );
    expect(error).toBeInstanceOf(ChannelDeliveryError);
    expect((error as ChannelDeliveryError).retryable).toBe(rule.retryable);
    expect(hook.posts).toHaveLength(rule.retryable ? 2 : 1);
    expect(waits).toEqual(rule.retryable ? [1000] : []);
  });
});
