import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  failureOf,
  NAMES_OF_KIND,
  parseRetryAfter,
  RETRY_POLICY,
  retryRuleFor,
  type FailureKind,
} from '../../../../shared/core/retry/retry-policy';

const NOW = Date.parse('2025-03-10T12:00:00Z');
const KINDS: readonly FailureKind[] = ['no-answer', 'timeout', 'throttling', 'service-fault', 'busy', 'unknown'];

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds, 0 meaning now', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter(' 12 ', NOW)).toBe(12_000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an HTTP date as the time left until then on the given clock', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 12:00:07 GMT', NOW)).toBe(7000);
    expect(parseRetryAfter('Mon, 10 Mar 2025 12:00:07 GMT', NOW + 5000)).toBe(2000);
  });

  it('treats an HTTP date in the past as now', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 11:00:00 GMT', NOW)).toBe(0);
  });

  it.each([null, undefined, '', '   ', '-5', '1.5', '3s', 'soon', 'Mon, 99 Foo 2025'])('cannot read %j: the caller uses its backoff', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('the retry table', () => {
  it('has one row per status, fallback and kind', () => {
    const keys = RETRY_POLICY.map((rule) => rule.on);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of [...KINDS, 'other 5xx', 'other status']) expect(keys, String(key)).toContain(key);
    expect(keys.filter((key) => typeof key !== 'number')).toHaveLength(KINDS.length + 2);
  });

  it('decides a status without a row of its own by its class', () => {
    expect(retryRuleFor({ status: 507 }).on).toBe('other 5xx');
    expect(retryRuleFor({ status: 599 }).on).toBe('other 5xx');
    expect(retryRuleFor({ status: 418 }).on).toBe('other status');
    expect(retryRuleFor({ status: 302 }).on).toBe('other status');
    expect(retryRuleFor({ status: 600 }).on).toBe('other status');
    expect(retryRuleFor({ status: 501 }).on).toBe(501);
  });

  it('gives every name of a kind that kind, as a name, a code or the code of a cause', () => {
    for (const [kind, names] of Object.entries(NAMES_OF_KIND)) {
      for (const name of names) {
        expect(failureOf(Object.assign(new Error('x'), { name })), name).toEqual({ kind });
        expect(failureOf(Object.assign(new Error('x'), { code: name })), name).toEqual({ kind });
        expect(failureOf(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: name }) })), name).toEqual({ kind });
      }
    }
  });

  it('reads an AWS error by its name before its SDK flag, and by its flag before its status', () => {
    const aws = (name: string, extra: object) => Object.assign(new Error('x'), { name, ...extra });
    expect(failureOf(aws('ThrottlingException', { $metadata: { httpStatusCode: 400 } }))).toEqual({ kind: 'throttling' });
    expect(failureOf(aws('Other', { $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } }))).toEqual({ kind: 'throttling' });
    expect(failureOf(aws('Other', { $retryable: {}, $metadata: { httpStatusCode: 400 } }))).toEqual({ kind: 'service-fault' });
    expect(failureOf(aws('Other', { $metadata: { httpStatusCode: 501 } }))).toEqual({ status: 501 });
    expect(failureOf(aws('AccessDenied', { $metadata: {} }))).toEqual({ kind: 'unknown' });
  });

  it('lists every row in docs/run-atomicity.md as it is', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'run-atomicity.md'), 'utf8');
    const lines = doc.slice(doc.indexOf('## Which failures are retried')).split('\n');
    const header = lines.indexOf('| failure | retried | why |');
    expect(header).toBeGreaterThan(0);
    const end = lines.findIndex((line, i) => i > header && !line.startsWith('|'));
    const documented = lines.slice(header + 2, end);
    expect(documented).toEqual(RETRY_POLICY.map((rule) => `| ${String(rule.on)} | ${rule.retryable ? 'yes' : 'no'} | ${rule.why} |`));
  });
});
