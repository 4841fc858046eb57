import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  PlanningApiError,
  ReportDefinitionError,
  SelectorNotFoundError,
  StorageError,
} from '../../../shared/core/errors';
import { jobRunId } from '../../../shared/jobs/export-job';
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

  it('retries throttling, server errors, timeouts and storage failures', () => {
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o', status: 503 })).retryable).toBe(true);
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o', status: 429 })).retryable).toBe(true);
    expect(classifyFailure(new PlanningApiError('x', { operation: 'o' })).retryable).toBe(true);
    expect(classifyFailure(new StorageError('s3 down')).retryable).toBe(true);
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
    expect(jobRunId({ exportId: 'abc12345-0000' }, now)).toBe('abc12345-0000');
    expect(jobRunId({ scheduledTime: '2026-11-23T06:00:00Z' }, now)).toBe('s-20261123T060000Z');
  });

  it('is new for manual runs', () => {
    expect(jobRunId({}, now)).toMatch(/^20261123T060005Z-[0-9a-f]{6}$/);
  });
});
