import { describe, expect, it } from 'vitest';
import { silentLog } from '../../../shared/core/logger';
import { currentSigningKey, freshCopyLinkUrl, signingKey } from '../../../shared/messages/message-links';

/**
 * A message's links: the configured endpoint may end in a slash (LINK_BASE_URL is a URL, and
 * `https://api.example.test/` is one); the signing key trims it once, so no link of any message,
 * from the report e-mail's job path or the chat's and alert's, has a double slash.
 */
const key = { id: 'k1', secret: 'k'.repeat(48) };
const now = new Date('2026-11-30T06:00:00Z');
const expiresAt = new Date('2026-12-30T06:00:00Z');

describe("a message's signing key", () => {
  it('trims the endpoint of its slashes once, whoever builds it', async () => {
    expect(signingKey('https://api.example.test//', key).baseUrl).toBe('https://api.example.test');
    const links = { baseUrl: 'https://api.example.test/prod/', keys: () => Promise.resolve({ current: key, all: [key] }) };
    const read = await currentSigningKey({ links, log: silentLog }, 'weekly', 'unreadable');
    expect(read?.baseUrl).toBe('https://api.example.test/prod');
    const url = freshCopyLinkUrl(read!, { expiresAt, now }, { report: 'weekly', runId: 'r1', message: 'chat' });
    expect(url).toMatch(/^https:\/\/api\.example\.test\/prod\/run\/[^/]+$/);
  });

  it('is none when no link endpoint is configured', async () => {
    expect(await currentSigningKey({ links: undefined, log: silentLog }, 'weekly', 'unreadable')).toBeUndefined();
  });
});
