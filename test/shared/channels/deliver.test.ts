import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverToChannels, type WebhookUrlSource } from '../../../shared/channels/deliver';
import { fixedClock } from '../../../shared/core/clock';
import type { Log } from '../../../shared/core/logger';
import { messageRunKey, sendOnce } from '../../../shared/messages/message-claim';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { sampleMessage } from '../../support/channel-message';
import { startWebhookRecorder, type WebhookRecorder } from '../../support/webhook-recorder';

const clock = fixedClock(new Date('2026-11-23T06:00:00Z'));

function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const record = (message: string, extra?: unknown) => {
    lines.push(`${message} ${JSON.stringify(extra ?? {})}`);
  };
  return { lines, debug: record, info: record, warn: record, error: record } as Log & { lines: string[] };
}

describe('delivering to several channels', () => {
  let hooks: WebhookRecorder;
  let deadUrl: string;
  beforeAll(async () => {
    hooks = await startWebhookRecorder();
    const dead = await startWebhookRecorder();
    deadUrl = dead.url('slack/dead/SECRET-DEAD');
    await dead.close();
  });
  afterAll(async () => {
    await hooks.close();
  });

  it('serves every channel that works when another fails, and says which failed without its URL', async () => {
    const urls: Record<string, string> = { good: hooks.url('teams/SECRET-GOOD'), dead: deadUrl };
    const webhooks: WebhookUrlSource = { webhookUrl: (ref) => Promise.resolve(urls[ref.key]!) };
    const log = recordingLog();
    const results = await deliverToChannels(
      [
        { type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'dead' } },
        { type: 'teams', webhook: { secretId: 'chat/webhooks', key: 'good' } },
      ],
      sampleMessage(),
      { webhooks, log, clock, post: { sleep: () => Promise.resolve() } },
    );
    expect(results).toEqual([
      { type: 'slack', webhook: 'secret "chat/webhooks", field "dead"', status: 'failed', error: 'the Slack webhook could not be reached (ECONNREFUSED)' },
      { type: 'teams', webhook: 'secret "chat/webhooks", field "good"', status: 'sent' },
    ]);
    expect(hooks.postsTo('teams/SECRET-GOOD')).toHaveLength(1);
    expect(hooks.postsTo('teams/SECRET-GOOD')[0]!.problems).toEqual([]);
    expect(`${log.lines.join('\n')}${JSON.stringify(results)}`).not.toMatch(/SECRET-(GOOD|DEAD)/);
  });

  it('records a channel as failed when no webhook reader is configured', async () => {
    const [result] = await deliverToChannels([{ type: 'slack', webhook: { secretId: 's', key: 'k' } }], sampleMessage(), { webhooks: undefined, log: recordingLog(), clock });
    expect(result).toMatchObject({ status: 'failed', error: 'no webhook secret reader is configured' });
  });

  it('reports a redirected post as failed, not sent, so a retry of the run posts it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'channels-redirect-'));
    try {
      const ledger = new LocalLedger(join(dir, 'ledger'));
      const webhooks: WebhookUrlSource = { webhookUrl: () => Promise.resolve(hooks.url('slack/MOVED')) };
      const log = recordingLog();
      const once = (channel: string, send: () => Promise<unknown>) =>
        sendOnce({ ledger, runKey: messageRunKey('weekly', 'run-moved'), channel, log, now: new Date('2026-11-23T06:00:00Z') }, send);
      const target = { type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'moved' } } as const;
      hooks.script({ status: 302, location: hooks.url('slack/ELSEWHERE') });
      const [first] = await deliverToChannels([target], sampleMessage(), { webhooks, log, clock, once });
      expect(first).toMatchObject({ status: 'failed', error: expect.stringContaining('answered 302, a redirect') as unknown });
      expect(hooks.postsTo('slack/ELSEWHERE')).toEqual([]);
      const [retry] = await deliverToChannels([target], sampleMessage(), { webhooks, log, clock, once });
      expect(retry).toMatchObject({ status: 'sent' });
      expect(hooks.postsTo('slack/MOVED').map((p) => p.method)).toEqual(['POST', 'POST']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('posts once per run and channel when a retry delivers the same run again (claimed in the run ledger)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'channels-once-'));
    try {
      const ledger = new LocalLedger(join(dir, 'ledger'));
      const webhooks: WebhookUrlSource = { webhookUrl: () => Promise.resolve(hooks.url('slack/ONCE')) };
      const log = recordingLog();
      const runKey = messageRunKey('weekly', 'run-1');
      const once = (channel: string, send: () => Promise<unknown>) => sendOnce({ ledger, runKey, channel, log, now: new Date('2026-11-23T06:00:00Z') }, send);
      const target = { type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'team' } } as const;
      const first = await deliverToChannels([target], sampleMessage(), { webhooks, log, clock, once });
      const retry = await deliverToChannels([target], sampleMessage(), { webhooks, log, clock, once });
      expect(first.map((r) => r.status)).toEqual(['sent']);
      expect(retry.map((r) => r.status)).toEqual(['skipped']);
      expect(hooks.postsTo('slack/ONCE')).toHaveLength(1);
      // Another run of the same report posts again.
      const nextRun = (channel: string, send: () => Promise<unknown>) =>
        sendOnce({ ledger, runKey: messageRunKey('weekly', 'run-2'), channel, log, now: new Date('2026-11-30T06:00:00Z') }, send);
      const next = await deliverToChannels([target], sampleMessage(), { webhooks, log, clock, once: nextRun });
      expect(next.map((r) => r.status)).toEqual(['sent']);
      expect(hooks.postsTo('slack/ONCE')).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
