import { describe, expect, it } from 'vitest';
import { buildReportEmail } from '../../../shared/messages/report-email';
import { verifyRunLinkToken } from '../../../shared/links/run-link-token';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import type { ExportResult } from '../../../shared/report/run/result';
import type { Storage } from '../../../shared/storage/storage';

const key = { id: 'k2', secret: 'b'.repeat(48) };
const now = new Date('2026-11-23T06:00:00Z');
const definition = parseReportDefinition({
  name: 'acme-weekly',
  datasets: { risks: {} },
  email: { to: ['pm@example.com'] },
  links: { emailLinkDays: 30 },
});
const result = {
  runFolder: 'acme-weekly/dt=2026-11-23/run=r1',
  manifestKey: 'acme-weekly/dt=2026-11-23/run=r1/manifest.json',
  summary: { title: 'ACME', sections: [] },
  written: true,
  latestUpdated: true,
  changes: { baseline: null, note: 'This is the first run of this report, so there is nothing to compare with yet.', tables: [], counts: { added: 0, removed: 0, changed: 0, scope: 0 }, rows: [], baselineFigures: null, sheetNames: {} },
  manifest: {
    formatVersion: 1, report: 'acme-weekly', runId: 'r1', generatedAt: now.toISOString(), timeZone: 'UTC',
    source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {}, summary: {},
    files: [{ path: 'acme-weekly.xlsx', format: 'xlsx', contentType: 'x', bytes: 10, sha256: 'a'.repeat(64), rows: {} }],
  },
} as unknown as ExportResult;
const storage = {} as Storage;

describe('report e-mail', () => {
  it('carries "Get a fresh copy now": a run link of the report, valid as long as the file links', async () => {
    const email = await buildReportEmail(definition as typeof definition & { email: NonNullable<typeof definition.email> }, result, {
      from: 'reports@example.com', linkBaseUrl: 'https://api.example.test/', key, now, storage, freshCopyLink: true,
    });
    const html = /<a href="https:\/\/api\.example\.test\/run\/([^"]+)"[^>]*>Get a fresh copy now<\/a>/.exec(email.html);
    expect(html).not.toBeNull();
    const claims = verifyRunLinkToken(html![1]!, { current: key }, now);
    expect(claims.report).toBe('acme-weekly');
    expect(claims.exp).toBe(Math.floor(now.getTime() / 1000) + 30 * 86400);
    expect(email.text).toContain(`Get a fresh copy now:\n  https://api.example.test/run/${html![1]}`);
  });

  it('has no fresh-copy link for an inline definition (no configured report to run)', async () => {
    const email = await buildReportEmail(definition as typeof definition & { email: NonNullable<typeof definition.email> }, result, {
      from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key, now, storage,
    });
    expect(email.html).not.toContain('fresh copy');
    expect(email.text).not.toContain('fresh copy');
  });

  it('gives an inline definition the configured sender and the default subject, without its title', async () => {
    const bait = parseReportDefinition({
      name: 'adhoc-probe',
      title: 'Your account is locked "now" – click http://evil.test\r\nBcc: x@evil.test',
      datasets: { risks: {} },
      email: { to: ['pm@example.com'], from: 'security@example.com', subjectTemplate: '{title}' },
      links: { emailLinkDays: 30 },
    });
    const options = { from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key, now, storage };
    const inline = await buildReportEmail(bait as typeof bait & { email: NonNullable<typeof bait.email> }, result, { ...options, inline: true });
    expect(inline.from).toBe('reports@example.com');
    expect(inline.subject).toBe('adhoc-probe – 23/11/2026');

    // A configured definition keeps its own subject template and sender.
    const configured = await buildReportEmail(bait as typeof bait & { email: NonNullable<typeof bait.email> }, result, options);
    expect(configured.from).toBe('security@example.com');
    expect(configured.subject.startsWith('Your account is locked')).toBe(true);
  });
});
