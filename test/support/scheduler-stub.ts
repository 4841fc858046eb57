import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for EventBridge Scheduler's schedule operations (REST-JSON: POST, PUT, GET and DELETE
 * on /schedules/{Name}, and GET /schedule-groups/{Name}), holding schedules in memory per group and recording every request. The
 * adapter's real SDK client talks to it through its endpoint, so what is checked is what the SDK
 * sends. It refuses what the real service refuses where a bug of ours could cause it: a name
 * outside [0-9a-zA-Z-_.]{1,64}, a missing expression, target, role or flexible window, a create of
 * an existing schedule (409 ConflictException) and an update or delete of a missing one (404).
 */
export interface StoredSchedule {
  readonly Name: string;
  readonly GroupName: string;
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly FlexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  readonly State?: string;
  readonly Description?: string;
  readonly Target: {
    readonly Arn: string;
    readonly RoleArn: string;
    readonly Input?: string;
    readonly DeadLetterConfig?: { Arn: string };
    readonly RetryPolicy?: { MaximumRetryAttempts: number; MaximumEventAgeInSeconds: number };
  };
}

export interface SchedulerRequest {
  readonly method: string;
  readonly name: string;
  readonly group: string;
}

export interface SchedulerStub {
  readonly endpoint: string;
  /** Schedules by `<group>/<name>`. */
  readonly schedules: Map<string, StoredSchedule>;
  /** Schedule groups that exist (GET /schedule-groups/{Name}); schedules do not need one here. */
  readonly groups: Set<string>;
  readonly requests: SchedulerRequest[];
  /** Answer the next `count` requests with this error (e.g. ThrottlingException, 429). */
  failNext(count: number, status: number, type: string): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const NAME = /^[0-9a-zA-Z-_.]{1,64}$/;

export async function startSchedulerStub(): Promise<SchedulerStub> {
  const schedules = new Map<string, StoredSchedule>();
  const groups = new Set<string>();
  const requests: SchedulerRequest[] = [];
  let failures: { count: number; status: number; type: string } | undefined;

  const answer = (req: IncomingMessage, body: string): { status: number; type?: string; json: unknown } => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const groupPath = /^\/schedule-groups\/([^/]+)$/.exec(url.pathname);
    if (groupPath && req.method === 'GET') return scheduleGroup(decodeURIComponent(groupPath[1]!));
    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    if (!match) return { status: 404, type: 'UnknownOperationException', json: { Message: `no route ${url.pathname}` } };
    const name = decodeURIComponent(match[1]!);
    const input = body === '' ? {} : (JSON.parse(body) as Partial<StoredSchedule>);
    const group = url.searchParams.get('groupName') ?? input.GroupName ?? 'default';
    requests.push({ method: req.method ?? '', name, group });
    if (failures && failures.count > 0) {
      failures.count -= 1;
      return { status: failures.status, type: failures.type, json: { Message: 'injected' } };
    }
    if (!NAME.test(name)) return { status: 400, type: 'ValidationException', json: { Message: `invalid name ${name}` } };
    const key = `${group}/${name}`;
    switch (req.method) {
      case 'GET':
        return schedules.has(key) ? { status: 200, json: { ...schedules.get(key), Arn: `arn:aws:scheduler:us-east-1:123456789012:schedule/${key}` } } : notFound(key);
      case 'DELETE':
        return schedules.delete(key) ? { status: 200, json: {} } : notFound(key);
      case 'POST':
      case 'PUT': {
        const problem = invalid(input);
        if (problem) return { status: 400, type: 'ValidationException', json: { Message: problem } };
        if (req.method === 'POST' && schedules.has(key)) return { status: 409, type: 'ConflictException', json: { Message: `${key} exists` } };
        if (req.method === 'PUT' && !schedules.has(key)) return notFound(key);
        // The idempotency token belongs to the request, not to the schedule.
        const { ClientToken: _token, ...schedule } = input as StoredSchedule & { ClientToken?: string };
        schedules.set(key, { ...schedule, Name: name, GroupName: group });
        return { status: 200, json: { ScheduleArn: `arn:aws:scheduler:us-east-1:123456789012:schedule/${key}` } };
      }
      default:
        return { status: 405, type: 'ValidationException', json: { Message: `method ${req.method}` } };
    }
  };

  const scheduleGroup = (name: string): { status: number; type?: string; json: unknown } => {
    requests.push({ method: 'GET', name, group: name });
    if (failures && failures.count > 0) {
      failures.count -= 1;
      return { status: failures.status, type: failures.type, json: { Message: 'injected' } };
    }
    if (!groups.has(name)) return { status: 404, type: 'ResourceNotFoundException', json: { Message: `Schedule group ${name} does not exist.` } };
    return { status: 200, json: { Arn: `arn:aws:scheduler:us-east-1:123456789012:schedule-group/${name}`, Name: name, State: 'ACTIVE' } };
  };

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const { status, type, json } = answer(req, body);
      res.writeHead(status, { 'content-type': 'application/json', ...(type && { 'x-amzn-errortype': type }) }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    schedules,
    groups,
    requests,
    failNext(count, status, type) {
      failures = { count, status, type };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function notFound(key: string): { status: number; type: string; json: unknown } {
  return { status: 404, type: 'ResourceNotFoundException', json: { Message: `Schedule ${key} does not exist.` } };
}

function invalid(input: Partial<StoredSchedule>): string | undefined {
  if (!input.ScheduleExpression) return 'ScheduleExpression is required';
  if (!input.FlexibleTimeWindow?.Mode) return 'FlexibleTimeWindow is required';
  // As Scheduler: a FLEXIBLE window names its length, 1 to 1440 minutes; OFF names none.
  const window = input.FlexibleTimeWindow.MaximumWindowInMinutes;
  if (input.FlexibleTimeWindow.Mode === 'FLEXIBLE' && (window === undefined || window < 1 || window > 1440)) return 'MaximumWindowInMinutes must be 1 to 1440 with Mode FLEXIBLE';
  if (input.FlexibleTimeWindow.Mode === 'OFF' && window !== undefined) return 'MaximumWindowInMinutes is not allowed with Mode OFF';
  if (!input.Target?.Arn || !input.Target.RoleArn) return 'Target.Arn and Target.RoleArn are required';
  if ((input.Description?.length ?? 0) > 512) return 'Description is longer than 512';
  return undefined;
}
