import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigError,
  CredentialsError,
  PlanningApiError,
  ReportDefinitionError,
  SelectorNotFoundError,
  StorageError,
} from '../../../shared/core/errors';
import { RANDOM_RUN_IDS } from '../../../shared/jobs/run-context';
import { jobRunId } from '../../../shared/jobs/stages/resolve';
import { classifyFailure } from '../../../shared/jobs/failure';

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

  it('never passes the text of an unexpected error to the user', () => {
    const failure = classifyFailure(new TypeError('Cannot read properties of undefined (reading "secret")'));
    expect(failure.reason).not.toContain('secret');
    expect(failure.reason).toMatch(/unexpectedly/);
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
