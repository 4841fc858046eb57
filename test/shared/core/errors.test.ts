import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../../../shared/core/errors';
import { ExporterError, StorageError } from '../../../shared/core/errors';
import { EventBridgePublisher } from '../../../shared/events/event-bridge';
import { classifyFailure } from '../../../shared/job/failure';
import { JobStatusStore } from '../../../shared/job/status/job-status';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { ledgerKey, type Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { exhaustedError, httpError } from '../../../shared/planning-api/client-errors';
import { PreflightReadError } from '../../../shared/preflight/read-error';
import { ScratchFileError } from '../../../shared/report/changes/keys/scratch';
import { SnapshotReadError } from '../../../shared/report/changes/snapshot';
import { UsageError } from '../../../cli/usage';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { jsonErrorAnswer, s3ErrorAnswer, startAwsErrorStub } from '../../support/aws-error-stub';

/**
 * Whether a failure is retried is decided where it is thrown. `status`: by the HTTP status (the
 * planning API's); `policy`: by the retry policy's table for the failure the site saw (a webhook's
 * status or network error, a planning API network error); `cause`: as the wrapped failure says;
 * `aws` / `fs`: by the SDK or file-system error (throttling, 5xx, a busy file pass on another
 * attempt; access denied or a full disk do not). All of them read core/retry/retry-policy.ts in the end.
 */
type Flag = boolean | 'status' | 'policy' | 'cause' | 'aws' | 'fs';

/** Each error class of shared/core/errors.ts and whether it is retried when its throw site says nothing. */
const CLASS_DEFAULTS: Record<string, Flag> = {
  ExporterError: false,
  ConfigError: false,
  PlanningApiError: 'status',
  // No answer at all: the policy's no-answer row.
  PlanningApiUnreachableError: true,
  NotFoundError: false,
  AuthenticationError: false,
  // Both are timeouts: the policy's timeout row, whatever the status.
  RequestTimeoutError: true,
  ResponseTooLargeError: false,
  DeadlineExceededError: true,
  SchemaMismatchError: false,
  CredentialsError: false,
  ReportDefinitionError: false,
  ReportPlanError: false,
  StorageError: false,
  LinkTokenError: false,
  SelectorNotFoundError: false,
  EmailDeliveryError: false,
  EventPublishError: false,
  RetryableExportError: true,
  RunInProgressError: true,
  LeaseLostError: false,
  ChannelDeliveryError: false,
  ScheduleError: false,
};

/**
 * Every place an error of those classes is built, per file, with the flag it ends up with. A new or
 * changed throw site fails this test until it is listed here: decide whether another attempt can help.
 */
const THROW_SITES: Record<string, readonly (readonly [string, Flag])[]> = {
  'cli/demo-command.ts': [['ReportDefinitionError', false]],
  'cli/discover-command.ts': [['ExporterError', false]],
  'cli/export-command.ts': [['ExporterError', false], ['ReportDefinitionError', false], ['StorageError', false], ['StorageError', false]],
  'cli/report-argument.ts': [['ExporterError', false]],
  'cli/link-command.ts': [['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false]],
  'cli/reports-command.ts': [['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false]],
  // A redirect is not followed, and the same URL redirects again: not retried.
  'shared/channels/webhook-post.ts': [['ChannelDeliveryError', 'policy'], ['ChannelDeliveryError', false], ['ChannelDeliveryError', 'policy']],
  'shared/core/config.ts': [['ConfigError', false]],
  'shared/core/settings.ts': [['ConfigError', false]],
  // A push that failed midway: as the write's own failure says.
  'shared/definitions/catalog.ts': [['ReportDefinitionError', false]],
  'shared/definitions/definition-store.ts': [['ReportDefinitionError', false], ['ReportDefinitionError', false], ['StorageError', 'cause']],
  // A schedule the scheduler does not agree with yet: the next sync may find it in step.
  'shared/definitions/schedule-sync.ts': [['ScheduleError', true]],
  'shared/definitions/scheduler-client.ts': [['ScheduleError', 'aws']],
  'shared/definitions/stored-definition.ts': [['ReportDefinitionError', false]],
  'shared/email/ses-mailer.ts': [['EmailDeliveryError', 'aws'], ['EmailDeliveryError', 'aws'], ['EmailDeliveryError', false], ['EmailDeliveryError', false], ['EmailDeliveryError', false]],
  'shared/events/event-bridge.ts': [['EventPublishError', 'aws']],
  // The router's own errors: a route that is not there, an export id nobody started; asking again cannot help.
  'shared/http/router.ts': [['NotFoundError', false], ['NotFoundError', false]],
  'shared/job/run-job.ts': [['RetryableExportError', true]],
  'shared/fan-out/step-functions-starter.ts': [['ExporterError', 'aws']],
  'shared/job/stages/resolve-definition.ts': [['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false]],
  // An entry the schema refuses fails for good; a record that kept changing under its writer may pass.
  'shared/ledger/ledger-record.ts': [['StorageError', false], ['StorageError', true]],
  'shared/ledger/dynamodb-ledger.ts': [['StorageError', 'aws'], ['StorageError', false], ['StorageError', false]],
  'shared/ledger/local-ledger.ts': [['StorageError', false], ['StorageError', true], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs']],
  'shared/ledger/rate-pacer.ts': [['StorageError', true]],
  'shared/links/link-token.ts': [['ConfigError', false], ['ConfigError', false], ['ConfigError', false], ['ConfigError', false], ['LinkTokenError', false]],
  'shared/links/presign.ts': [['StorageError', 'aws'], ['StorageError', false]],
  'shared/links/run-link-token.ts': [['ConfigError', false], ['ConfigError', false]],
  'shared/links/unsubscribe-token.ts': [['ConfigError', false]],
  'shared/messages/alert-delivery.ts': [['ExporterError', false]],
  'shared/messages/report-email-delivery.ts': [['ExporterError', false], ['ExporterError', false], ['ExporterError', false]],
  // A claim of another attempt not yet marked sent: a retry after the send timeout sends it.
  'shared/messages/message-claim.ts': [['RetryableExportError', true]],
  'shared/planning-api/client-errors.ts': [['AuthenticationError', false], ['AuthenticationError', false], ['AuthenticationError', false], ['DeadlineExceededError', true], ['NotFoundError', false], ['NotFoundError', false], ['PlanningApiError', 'status'], ['PlanningApiError', 'status'], ['PlanningApiUnreachableError', 'policy'], ['RequestTimeoutError', true], ['ResponseTooLargeError', false]],
  'shared/planning-api/client.ts': [['SchemaMismatchError', false]],
  'shared/planning-api/paging.ts': [['PlanningApiError', false], ['PlanningApiError', false]],
  'shared/planning-api/parse.ts': [['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false], ['SchemaMismatchError', false]],
  'shared/planning-api/transport/requester.ts': [['NotFoundError', false]],
  'shared/render/output-error.ts': [['StorageError', 'cause'], ['StorageError', true]],
  'shared/render/sink-lifecycle.ts': [['ExporterError', false]],
  'shared/render/xlsx/exceljs-internals/charts.ts': [['ExporterError', false], ['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/exceljs-internals/data-sheet.ts': [['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/exceljs-internals/sheet-buffers.ts': [['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/exceljs-internals/sheet-order.ts': [['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/exceljs-internals/writer.ts': [['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/data-sheet-sink.ts': [['ExporterError', false], ['ExporterError', false]],
  'shared/render/xlsx/workbook.ts': [['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false], ['ExporterError', false]],
  'shared/report/definition/definition.ts': [['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false], ['ReportDefinitionError', false]],
  // Every problem of the plan, listed at once: the same definition fails the same way again.
  'shared/report/run/export-plan.ts': [['ReportPlanError', false]],
  'shared/report/run/run-attempt.ts': [['LeaseLostError', false], ['StorageError', false]],
  'shared/report/run/run-export.ts': [['StorageError', false]],
  'shared/report/run/run-lease.ts': [['LeaseLostError', false], ['LeaseLostError', false], ['RunInProgressError', true], ['StorageError', true]],
  'shared/report/run/run-writer.ts': [['StorageError', true]],
  // A copy into the tables that failed: the next attempt of the run finishes the copies.
  'shared/report/run/table-publish.ts': [['LeaseLostError', false], ['StorageError', true]],
  'shared/secrets/credentials-file.ts': [['CredentialsError', false]],
  'shared/secrets/secret-document.ts': [['CredentialsError', false], ['CredentialsError', false], ['CredentialsError', false], ['CredentialsError', false], ['CredentialsError', false]],
  'shared/secrets/secret-source.ts': [['CredentialsError', 'aws'], ['CredentialsError', false], ['CredentialsError', false]],
  'shared/storage/local-storage.ts': [['StorageError', 'cause'], ['StorageError', false], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', 'fs'], ['StorageError', true]],
  'shared/storage/s3-storage.ts': [['StorageError', 'aws'], ['StorageError', 'aws'], ['StorageError', 'cause'], ['StorageError', false], ['StorageError', false]],
  'shared/storage/storage-keys.ts': [['StorageError', false], ['StorageError', false], ['StorageError', false], ['StorageError', false], ['StorageError', false]],
};

const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The text of a call from `new X(` to its closing parenthesis. */
function callText(source: string, start: number): string {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    if (source[i] === '(') depth += 1;
    else if (source[i] === ')' && --depth === 0) return source.slice(start, i + 1);
  }
  throw new Error(`unbalanced call at ${start}`);
}

function flagOf(className: string, call: string): boolean | string {
  // `{ retryable }`: the site computed it from the answer's HTTP status just above.
  if (/[{,]\s*retryable\s*[,}]/.test(call)) return 'status';
  const option = /retryable:\s*([^,}\n]+)/.exec(call)?.[1]?.trim();
  if (option === undefined) return CLASS_DEFAULTS[className] ?? 'unknown class';
  if (option === 'true' || option === 'false') return option === 'true';
  if (option.includes('retryableCause(')) return 'cause';
  if (option.includes('isRetryable(') || option.includes('retryableFailure(')) return 'policy';
  if (option.includes('transientAws')) return 'aws';
  if (option.includes('transientFs')) return 'fs';
  return `not a known decision: ${option}`;
}

function scanThrowSites(): Record<string, [string, boolean | string][]> {
  const pattern = new RegExp(`new (${Object.keys(CLASS_DEFAULTS).join('|')})\\(`, 'g');
  const found: Record<string, [string, boolean | string][]> = {};
  for (const file of ['cli', 'lambdas', 'shared'].flatMap(sourceFiles).sort()) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const match of source.matchAll(pattern)) {
      const className = match[1] ?? '';
      (found[file] ??= []).push([className, flagOf(className, callText(source, match.index + match[0].length - 1))]);
    }
  }
  return found;
}

const bySite = (a: readonly [string, unknown], b: readonly [string, unknown]) => `${a[0]}${String(a[1])}`.localeCompare(`${b[0]}${String(b[1])}`);

type ErrorClass = new (...args: never[]) => ExporterError;

function exportedErrorClasses(): [string, ErrorClass][] {
  const entries: [string, unknown][] = Object.entries(errors);
  return entries.filter(
    (entry): entry is [string, ErrorClass] =>
      typeof entry[1] === 'function' && (entry[1] === ExporterError || (entry[1] as { prototype: unknown }).prototype instanceof ExporterError),
  );
}

/** An instance of `cls` built as its throw sites build it, with `status` where it takes one. */
function build(name: string, cls: ErrorClass, status?: number): ExporterError {
  const make = cls as unknown as new (message: string, second?: unknown) => ExporterError;
  if (name === 'ReportDefinitionError') return new make('m', []);
  if (cls === errors.PlanningApiError || cls.prototype instanceof errors.PlanningApiError) {
    return new make('m', { operation: 'o', path: 'p', ...(status !== undefined && { status }) });
  }
  return new make('m');
}

describe('error classes', () => {
  it('lists every class with the flag it has when its throw site says nothing', () => {
    const classes = exportedErrorClasses();
    expect(classes.map(([name]) => name).sort()).toEqual(Object.keys(CLASS_DEFAULTS).sort());
    for (const [name, cls] of classes) {
      const expected = CLASS_DEFAULTS[name];
      if (expected === 'status') {
        expect([503, 429, 408, undefined].map((status) => build(name, cls, status).retryable), name).toEqual([true, true, true, true]);
        expect([400, 404, 422, 501].map((status) => build(name, cls, status).retryable), name).toEqual([false, false, false, false]);
      } else {
        expect(build(name, cls).retryable, name).toBe(expected);
      }
    }
  });

  it('lets the throw site override the class default and keeps the public message apart from the logged one', () => {
    expect(new StorageError('s3 answered 503', { retryable: true }).retryable).toBe(true);
    expect(new errors.RunInProgressError('busy', { retryable: false }).retryable).toBe(false);
    const config = new errors.ConfigError('LEDGER_TABLE is missing', { cause: new Error('zod') });
    expect(config.message).toBe('LEDGER_TABLE is missing');
    expect(config.publicMessage).not.toContain('LEDGER_TABLE');
    expect(config.cause).toBeInstanceOf(Error);
    expect(new StorageError('no cause')).not.toHaveProperty('cause');
  });
});

/** The HTTP status the export API answers each class with, where it is not 500. */
const HTTP_STATUSES: Record<string, number> = {
  PlanningApiError: 502,
  PlanningApiUnreachableError: 502,
  NotFoundError: 502,
  AuthenticationError: 502,
  RequestTimeoutError: 504,
  ResponseTooLargeError: 502,
  DeadlineExceededError: 504,
  SchemaMismatchError: 502,
  ReportDefinitionError: 400,
  ReportPlanError: 400,
  LinkTokenError: 403,
  SelectorNotFoundError: 400,
  RetryableExportError: 503,
  RunInProgressError: 409,
  LeaseLostError: 409,
};

/** The classes whose owners' notice gives advice of their own (the rest advise by `retryable`). */
const ADVISED = ['ConfigError', 'NotFoundError', 'AuthenticationError', 'DeadlineExceededError', 'SchemaMismatchError', 'CredentialsError', 'ReportDefinitionError', 'ReportPlanError', 'SelectorNotFoundError'];

describe('what each error class means', () => {
  it('goes by a name spelt from its own kind, which is its class name before any minifier, and is found again by it', () => {
    for (const [name, cls] of exportedErrorClasses()) {
      const error = build(name, cls);
      expect(error.name, name).toBe(name);
      expect(errors.errorNameOf(error.kind), name).toBe(name);
      expect(error.kind, name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(errors.errorMeaningNamed(name), name).toBe(cls);
    }
    expect(new Set(exportedErrorClasses().map(([name, cls]) => build(name, cls).kind)).size).toBe(exportedErrorClasses().length);
    expect(errors.errorMeaningNamed('TypeError')).toBeUndefined();
  });

  it('is so for the classes beside their layers too', () => {
    for (const cls of [ScratchFileError, SnapshotReadError, PreflightReadError, UsageError]) expect(new cls('m').name).toBe(cls.name);
  });

  it('carries its HTTP status and its advice', () => {
    for (const [name, cls] of exportedErrorClasses()) {
      const error = build(name, cls);
      expect(error.httpStatus, name).toBe(HTTP_STATUSES[name] ?? 500);
      expect(error.advice !== undefined, name).toBe(ADVISED.includes(name));
    }
    expect(build('ReportPlanError', errors.ReportPlanError).advice).toMatch(/^The run was stopped before it fetched anything/);
    expect(build('AuthenticationError', errors.AuthenticationError).advice).toBe(build('CredentialsError', errors.CredentialsError).advice);
  });
});

describe('throw sites', () => {
  it('each site of each error class decides retrying as listed', () => {
    const found = scanThrowSites();
    const sorted = (sites: Record<string, readonly (readonly [string, unknown])[]>) =>
      Object.fromEntries(Object.entries(sites).map(([file, list]) => [file, [...list].sort(bySite)]));
    expect(sorted(found)).toEqual(sorted(THROW_SITES));
  });
});

describe('flags set by the real code paths', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'errors-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const failureOf = async (work: Promise<unknown>): Promise<ExporterError> => {
    const error: unknown = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof ExporterError)) throw new Error(`expected an ExporterError, got ${String(error)}`);
    return error;
  };

  it('an S3 throttle or 5xx is retryable; access denied is not', async () => {
    const stub = await startAwsErrorStub(s3ErrorAnswer(503, 'SlowDown'));
    try {
      const client = new S3Client({
        endpoint: stub.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'k', secretAccessKey: 's' },
        maxAttempts: 1,
      });
      const storage = new S3Storage({ client, bucket: 'reports' });
      const slow = await failureOf(storage.getObject('a/b.csv'));
      expect(slow).toBeInstanceOf(StorageError);
      expect(slow.retryable).toBe(true);
      stub.answer = s3ErrorAnswer(500, 'InternalError');
      expect((await failureOf(storage.listKeys('a/'))).retryable).toBe(true);
      stub.answer = s3ErrorAnswer(403, 'AccessDenied');
      const denied = await failureOf(storage.getObject('a/b.csv'));
      expect(denied.message).toMatch(/AccessDenied/);
      expect(denied.retryable).toBe(false);
      expect(classifyFailure(denied).retryable).toBe(false);
    } finally {
      await stub.close();
    }
  });

  it('a throttled run ledger is retryable; a missing table is not', async () => {
    const stub = await startAwsErrorStub(jsonErrorAnswer(400, 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException'));
    try {
      const client = new DynamoDBClient({ endpoint: stub.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' }, maxAttempts: 1 });
      const ledger = new DynamoDbLedger({ client, tableName: 'ledger' });
      expect((await failureOf(ledger.get(ledgerKey('job', 'abc12345')))).retryable).toBe(true);
      stub.answer = jsonErrorAnswer(400, 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException');
      expect((await failureOf(ledger.put(ledgerKey('job', 'abc12345'), {}, 0))).retryable).toBe(false);
    } finally {
      await stub.close();
    }
  });

  it('an event the bus throttled is retryable; one it refused is not', async () => {
    const answer = (code: string) => ({
      status: 200,
      contentType: 'application/x-amz-json-1.1',
      body: JSON.stringify({ FailedEntryCount: 1, Entries: [{ ErrorCode: code, ErrorMessage: 'from the stub' }] }),
    });
    const stub = await startAwsErrorStub(answer('ThrottlingException'));
    try {
      const client = new EventBridgeClient({ endpoint: stub.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' }, maxAttempts: 1 });
      const publisher = new EventBridgePublisher({ busName: 'bus', client });
      const detail = { report: 'r', runId: 'x', reason: 'y', errorType: 'E', retryable: false } as unknown as Parameters<typeof publisher.publish>[1];
      expect((await failureOf(publisher.publish('ReportFailed', detail))).retryable).toBe(true);
      stub.answer = answer('AccessDeniedException');
      expect((await failureOf(publisher.publish('ReportFailed', detail))).retryable).toBe(false);
    } finally {
      await stub.close();
    }
  });

  it('a planning API 5xx, 429 or timeout is retryable; 400 and 404 are not', () => {
    const call = { operation: 'listRisks', path: '/risks' };
    const context = { redact: (text: string) => text, timeoutMs: 1000, maxResponseBytes: 1024 };
    const response = (status: number) => ({ kind: 'response' as const, status, text: '', headers: {} });
    const cast = (o: unknown) => o as Parameters<typeof httpError>[1];
    expect(httpError(call, cast(response(400)), context).retryable).toBe(false);
    expect(httpError(call, cast(response(404)), context).retryable).toBe(false);
    expect(exhaustedError(call, cast(response(503)), 3, context).retryable).toBe(true);
    expect(exhaustedError(call, cast(response(429)), 3, context).retryable).toBe(true);
    expect(exhaustedError(call, { kind: 'timeout' } as Parameters<typeof exhaustedError>[1], 3, context).retryable).toBe(true);
  });

  it('a bad storage key, a corrupt ledger entry and a corrupt job record are not retryable', async () => {
    const storage = new LocalDirectoryStorage(join(dir, 'out'));
    expect((await failureOf(storage.putObject('../escape.csv', 'x', { contentType: 'text/csv' }))).retryable).toBe(false);

    const ledgerDir = join(dir, 'ledger');
    const ledger = new LocalLedger(ledgerDir);
    await ledger.put(ledgerKey('job', 'abc12345'), { not: 'a job' }, 0);
    const corruptJob = await failureOf(new JobStatusStore(ledger).get('abc12345'));
    expect(corruptJob.message).toMatch(/is not valid/);
    expect(corruptJob.retryable).toBe(false);

    await mkdir(join(dir, 'broken'), { recursive: true });
    const broken = new LocalLedger(join(dir, 'broken'));
    await broken.put(ledgerKey('job', 'x'), {}, 0);
    // One folder per key, one file per version (see LocalLedger).
    const [folder] = readdirSync(join(dir, 'broken')).filter((name) => !name.startsWith('.'));
    await writeFile(join(dir, 'broken', folder ?? '', '1.json'), '{ half');
    const corrupt = await failureOf(broken.get(ledgerKey('job', 'x')));
    expect(corrupt.message).toMatch(/corrupt/);
    expect(corrupt.retryable).toBe(false);
  });

  it('a job status that keeps changing under its writer is retryable', async () => {
    const inner = new LocalLedger(join(dir, 'racing'));
    // Another writer moves the entry on between each read and write of the store.
    const racing: Ledger = {
      get: (key) => inner.get(key),
      put: async (key, value, expectedVersion, options) => {
        const current = await inner.get(key);
        if (current) await inner.put(key, current.value, current.version, options);
        return inner.put(key, value, expectedVersion, options);
      },
      describe: () => inner.describe(),
    };
    const store = new JobStatusStore(inner);
    const at = '2026-11-23T06:00:00.000Z';
    await store.put({ id: 'abc12345', status: 'queued', report: 'r', createdAt: at, updatedAt: at });
    const lost = await failureOf(new JobStatusStore(racing).update('abc12345', { status: 'running' }, new Date(at)));
    expect(lost.message).toMatch(/kept changing/);
    expect(lost.retryable).toBe(true);
  });

  describe('runs', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSimulator();
    });
    afterAll(async () => {
      await sim.close();
    });

    const definition = parseReportDefinition({ name: 'flags', datasets: { risks: {} } });
    const exported = (root: string, runId: string) => runOf(definition).in(root).against(sim.credentials()).at('2026-11-23T06:00:00Z').withRunId(runId).export();

    it('a malformed run id is not retryable', async () => {
      const error = await failureOf(exported(join(dir, 'bad-id'), '../up'));
      expect(error).toBeInstanceOf(StorageError);
      expect(error.message).toMatch(/run id/);
      expect(classifyFailure(error).retryable).toBe(false);
    });

    it('a run complete in the ledger whose manifest is gone is not retryable', async () => {
      const root = join(dir, 'gone');
      const first = await exported(root, 'r-1');
      await new LocalDirectoryStorage(root).deleteObjects([first.manifestKey]);
      const error = await failureOf(exported(root, 'r-1'));
      expect(error.message).toMatch(/manifest .* is gone/);
      expect(classifyFailure(error)).toMatchObject({ retryable: false, errorType: 'StorageError' });
    });
  });
});
