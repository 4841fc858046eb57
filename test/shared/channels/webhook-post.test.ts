import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelDeliveryError } from '../../../shared/core/errors';
import { postWebhook } from '../../../shared/channels/webhook-post';
import { fixedClock } from '../../../shared/core/clock';
import { startWebhookRecorder, type WebhookRecorder } from '../../support/webhook-recorder';

/** The run's clock where a test reads no time from it. */
const clock = fixedClock(new Date('2026-11-23T06:00:00Z'));
const SECRET_PATH = 'slack/T000/B000/very-secret-token';

describe('posting to a webhook', () => {
  let hook: WebhookRecorder;
  let waits: number[];
  const sleep = (ms: number) => {
    waits.push(ms);
    return Promise.resolve();
  };
  beforeAll(async () => {
    hook = await startWebhookRecorder();
  });
  beforeEach(() => {
    waits = [];
    hook.posts.length = 0;
  });
  afterAll(async () => {
    await hook.close();
  });

  async function failure(promise: Promise<unknown>): Promise<ChannelDeliveryError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelDeliveryError);
    const e = error as ChannelDeliveryError;
    expect(e.message).not.toContain('very-secret-token');
    expect(JSON.stringify({ ...e, message: e.message, cause: e.cause })).not.toContain('very-secret-token');
    return e;
  }

  it('posts JSON once when the webhook takes it', async () => {
    await postWebhook(hook.url(SECRET_PATH), { text: 'hello' }, 'Slack', { sleep, clock });
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]!.body).toEqual({ text: 'hello' });
    expect(hook.posts[0]!.contentType).toMatch(/^application\/json/);
    expect(waits).toEqual([]);
  });

  it('waits as long as Retry-After asks after a 429, then posts again', async () => {
    hook.script({ status: 429, body: 'rate_limited', retryAfter: '7' });
    await postWebhook(hook.url(SECRET_PATH), { text: 'hello' }, 'Slack', { sleep, clock });
    expect(hook.posts).toHaveLength(2);
    expect(waits).toEqual([7000]);
  });

  it('reads a Retry-After date against the injected clock', async () => {
    hook.script({ status: 503, retryAfter: 'Mon, 23 Nov 2026 06:00:05 GMT' });
    await postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock: () => new Date('2026-11-23T06:00:00Z') });
    expect(waits).toEqual([5000]);
  });

  it('backs off 1 s, 2 s on 5xx without Retry-After and gives up after three attempts, as retryable', async () => {
    hook.script({ status: 500 }, { status: 502 }, { status: 503 });
    const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock }));
    expect(error.message).toBe('the Slack webhook answered 503');
    expect(error.retryable).toBe(true);
    expect(waits).toEqual([1000, 2000]);
    expect(hook.posts).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond the limit', async () => {
    hook.script({ status: 429, retryAfter: '3600' });
    const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock }));
    expect(error.retryable).toBe(true);
    expect(waits).toEqual([]);
  });

  it('does not wait past the deadline', async () => {
    hook.script({ status: 503, retryAfter: '5' });
    const now = new Date('2026-11-23T06:00:00Z');
    const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock: () => now, deadline: now.getTime() + 4000 }));
    expect(error.message).toBe('the Slack webhook answered 503');
    expect(waits).toEqual([]);
  });

  it('fails at once on a removed webhook, saying what to do, without the URL', async () => {
    hook.script({ status: 404, body: 'no_service' });
    const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock }));
    expect(error.message).toBe('the Slack webhook answered 404: the webhook may have been removed; put a new one in the secret');
    expect(error.retryable).toBe(false);
    expect(hook.posts).toHaveLength(1);
  });

  it.each([301, 302, 303])('does not follow a %i: the post fails at once, not retryable, and the new address is never asked', async (status) => {
    const elsewhere = await startWebhookRecorder();
    try {
      hook.script({ status, location: elsewhere.url('slack/moved/very-secret-token') });
      const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock }));
      expect(error.message).toBe(
        `the Slack webhook answered ${status}, a redirect; redirects are not followed, so nothing was posted: put the webhook's current URL in the secret`,
      );
      expect(error.retryable).toBe(false);
      expect(hook.posts.map((p) => p.method)).toEqual(['POST']);
      expect(elsewhere.posts).toEqual([]);
      expect(waits).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it.each([307, 308])('does not post the message again to the host a %i names', async (status) => {
    const elsewhere = await startWebhookRecorder();
    try {
      hook.script({ status, location: elsewhere.url('slack/other-host') });
      const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'link token abc' }, 'Slack', { sleep, clock }));
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(`answered ${status}, a redirect`);
      expect(hook.posts).toHaveLength(1);
      expect(elsewhere.posts).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('ends a request the webhook never answers at the timeout', async () => {
    hook.script({ status: 0, hang: true });
    // The time limit fires once the webhook holds the post: an event, not a clock.
    const limits: number[] = [];
    const timeoutSignal = (ms: number): AbortSignal => {
      limits.push(ms);
      const attempt = new AbortController();
      void hook.waitForPosts(1).then(() => attempt.abort(new DOMException('timed out', 'TimeoutError')));
      return attempt.signal;
    };
    const error = await failure(postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Microsoft Teams', { sleep, clock, timeoutMs: 200, attempts: 1, timeoutSignal }));
    expect(error.message).toBe('the Microsoft Teams webhook did not answer within 200 ms');
    expect(error.retryable).toBe(true);
    expect(limits).toEqual([200]);
  });

  it('waits its own backoff when Retry-After cannot be read, as the planning client does', async () => {
    hook.script({ status: 503, retryAfter: 'soon' });
    await postWebhook(hook.url(SECRET_PATH), { text: 'x' }, 'Slack', { sleep, clock: () => new Date('2026-11-23T06:00:00Z') });
    expect(hook.posts).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('names the network error, not the address, when nothing listens', async () => {
    const closed = await startWebhookRecorder();
    const url = closed.url(SECRET_PATH);
    await closed.close();
    const error = await failure(postWebhook(url, { text: 'x' }, 'Slack', { sleep, clock, attempts: 1 }));
    expect(error.message).toBe('the Slack webhook could not be reached (ECONNREFUSED)');
  });
});
