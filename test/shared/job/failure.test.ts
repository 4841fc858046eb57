import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigError,
  CredentialsError,
  DeadlineExceededError,
  PlanningApiError,
  ReportDefinitionError,
  RequestTimeoutError,
  SelectorNotFoundError,
  StorageError,
} from '../../../shared/core/errors';
import { NAMES_OF_KIND, RETRY_POLICY, type FailureKind, type RetryRule } from '../../../shared/core/retry/retry-policy';
import { RANDOM_RUN_IDS } from '../../../shared/report/run/context';
import { jobRunId } from '../../../shared/job/stages/resolve';
import { classifyFailure } from '../../../shared/job/failure';
import { statusesOf } from '../../support/retry-cases';

/** Node's fetch failing on the socket: `TypeError: fetch failed`, the socket's error as `cause`. */
function fetchFailed(code: string | undefined): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`socket: ${code ?? 'no code'}`), code === undefined ? {} : { code }) });
}

/** An AWS SDK error as it reaches us unwrapped: a service name and the HTTP status in `$metadata`. */
function awsError(name: string, extra: Record<string, unknown>): Error {
  return Object.assign(new Error(`${name} from the service`), { name, ...extra });
}

/** Errors of no known kind: what a bug, a bad certificate, a blocked port or a missing name throw. */
const UNKNOWN_ERRORS: readonly unknown[] = [
  new TypeError('Cannot read properties of undefined (reading "id")'),
  new RangeError('Invalid array length'),
  fetchFailed('CERT_HAS_EXPIRED'),
  fetchFailed('ENOTFOUND'),
  fetchFailed(undefined),
  new DOMException('aborted by the caller', 'AbortError'),
  awsError('AccessDeniedException', { $metadata: {} }),
  'a string thrown',
  undefined,
];

/**
 * The failures each row stands for, as the job may see them: for a status, our own error with that
 * status and an unwrapped AWS error that came with it; for a kind, every name and code of the kind,
 * as an error's name and as the code of a fetch failure's cause, and the shapes only that kind has.
 */
function failuresOf(rule: RetryRule): unknown[] {
  const statuses = statusesOf(rule);
  if (statuses.length > 0) {
    return statuses.flatMap((status) => [new PlanningApiError('x', { operation: 'o', status }), awsError('SomeServiceException', { $metadata: { httpStatusCode: status } })]);
  }
  const kind = rule.on as FailureKind;
  if (kind === 'unknown') return [...UNKNOWN_ERRORS];
  const shapes: Partial<Record<FailureKind, unknown[]>> = {
    timeout: [new DOMException('signal timed out', 'TimeoutError'), new RequestTimeoutError('x', { operation: 'o' }), new DeadlineExceededError('x', { operation: 'o' })],
    throttling: [awsError('SomeServiceException', { $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } })],
    'service-fault': [awsError('SomeServiceException', { $retryable: {}, $metadata: { httpStatusCode: 400 } })],
  };
  const named = NAMES_OF_KIND[kind].flatMap((name) => [Object.assign(new Error(name), { name }), fetchFailed(name)]);
  return [...named, ...(shapes[kind] ?? [])];
}

describe('classifyFailure reads the retry policy', () => {
  it.each(RETRY_POLICY)('$on: retried by Lambda is $retryable', (rule) => {
    const failures = failuresOf(rule);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      const label = failure instanceof Error ? `${failure.name}: ${failure.message} (${JSON.stringify(failure.cause ?? null)})` : String(failure);
      expect(classifyFailure(failure).retryable, label).toBe(rule.retryable);
    }
  });
});

describe('classifyFailure', () => {
  it('does not retry what fails the same way every time', () => {
    for (const error of [
      new ReportDefinitionError('bad', []),
      new SelectorNotFoundError('no board'),
      new AuthenticationError('check the e-mail and API key', { operation: 'listBoards', status: 401 }),
      new PlanningApiError('bad request', { operation: 'listBoards', status: 400 }),
    ]) {
      expect(classifyFailure(error)).toMatchObject({ retryable: false, reason: error.message, errorType: error.name });
    }
  });

  it('retries throttling, server errors and timeouts', () => {
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o', status: 503 })).retryable).toBe(true);
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o', status: 429 })).retryable).toBe(true);
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o' })).retryable).toBe(true);
  });

  it('retries a storage failure only when its throw site marked it retryable', () => {
    expect(classifyFailure(new StorageError('s3 answered 503', { retryable: true })).retryable).toBe(true);
    expect(classifyFailure(new StorageError('run id "../x" must be 1-100 letters')).retryable).toBe(false);
  });

  it('tells callers the public message, keeps the logged message and masks ARNs', () => {
    const config = new ConfigError('REPORTS_BUCKET is missing');
    expect(classifyFailure(config)).toEqual({ reason: config.publicMessage, errorType: 'ConfigError', retryable: false });
    expect(classifyFailure(config).reason).not.toContain('REPORTS_BUCKET');
    const credentials = new CredentialsError('secret arn:aws:secretsmanager:eu-west-1:123456789012:secret:x was not found');
    expect(classifyFailure(credentials).reason).not.toMatch(/secretsmanager|123456789012/);
    const denied = new StorageError('AccessDenied: arn:aws:iam::123456789012:role/exporter may not write', { retryable: false });
    expect(classifyFailure(denied).reason).toBe('AccessDenied: [ARN] may not write');
    const custom = new StorageError('manifest s3://internal/x is gone', { publicMessage: 'the run is gone; export with a new run id' });
    expect(classifyFailure(custom).reason).toBe('the run is gone; export with a new run id');
  });

  it('never passes the text of an unexpected error to the user, and does not retry it', () => {
    const failure = classifyFailure(new TypeError('Cannot read properties of undefined (reading "secret")'));
    expect(failure.reason).not.toContain('secret');
    expect(failure.reason).toMatch(/unexpectedly/);
    expect(failure.retryable).toBe(false);
  });
});

describe('jobRunId', () => {
  const now = new Date('2026-11-23T06:00:05Z');
  it('is the export id for on-demand jobs and derived from the scheduled time for schedules', () => {
    expect(jobRunId({ exportId: 'abc12345-0000' }, now, RANDOM_RUN_IDS)).toBe('abc12345-0000');
    expect(jobRunId({ scheduledTime: '2026-11-23T06:00:00Z' }, now, RANDOM_RUN_IDS)).toBe('s-20261123T060000Z');
  });

  it('is new for manual runs', () => {
    expect(jobRunId({}, now, RANDOM_RUN_IDS)).toMatch(/^20261123T060005Z-[0-9a-f]{6}$/);
  });
});
