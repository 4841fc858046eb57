import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  GetScheduleGroupCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { ScheduleError, transientAwsFailure } from '../core/errors';
import type { ReportScheduler, ScheduleSpec, ScheduledReport } from './report-schedule';

export interface SchedulerTarget {
  /** The schedule group of the stack: the sync function may touch schedules in it only. */
  readonly groupName: string;
  /** What each schedule starts: the scheduled-runs queue (the export function takes its messages). */
  readonly targetArn: string;
  /** The role Scheduler assumes to send to it. */
  readonly roleArn: string;
  /** Where Scheduler puts invocations it could not deliver. */
  readonly deadLetterArn: string;
}

/** A Scheduler client for the configured endpoint (a local stand-in in tests), in `region` when given (else the SDK's). */
export function createSchedulerClient(endpoint?: string, region?: string): SchedulerClient {
  return new SchedulerClient({ ...(endpoint && { endpoint }), ...(region !== undefined && { region }) });
}

/** Reads the schedules of one group (the run list checks each stored report's schedule with it). */
export class ScheduleReader {
  protected readonly client: SchedulerClient;

  constructor(
    protected readonly groupName: string,
    client?: SchedulerClient,
  ) {
    this.client = client ?? new SchedulerClient({});
  }

  async get(name: string): Promise<ScheduledReport | undefined> {
    try {
      const found = await this.client.send(new GetScheduleCommand({ Name: name, GroupName: this.groupName }));
      const cron = found.ScheduleExpression ?? '';
      return { name, cron, timeZone: found.ScheduleExpressionTimezone ?? 'UTC', enabled: found.State !== 'DISABLED' };
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw this.failure(`could not read the schedule of "${name}"`, error);
    }
  }

  /** Whether the group itself exists (the stack creates it; `npm run preflight` checks it is there). */
  async groupExists(): Promise<boolean> {
    try {
      await this.client.send(new GetScheduleGroupCommand({ Name: this.groupName }));
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw this.failure('could not read the schedule group', error);
    }
  }

  // The group name is ours; the SDK's message names the schedule, never an ARN of the target.
  protected failure(what: string, error: unknown): ScheduleError {
    const detail = error instanceof Error ? error.name : String(error);
    return new ScheduleError(`${what} in group "${this.groupName}": ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
  }
}

/**
 * Report schedules in EventBridge Scheduler. Every schedule invokes the export function with its
 * report's payload, at the configured minute (or within the report's window, `schedule.windowMinutes`), retried twice for at most an
 * hour by Scheduler when Lambda cannot take the event, then dead-lettered: a report delivered an
 * hour late is better re-run by hand than sent silently.
 */
export class EventBridgeReportScheduler extends ScheduleReader implements ReportScheduler {
  constructor(
    private readonly target: SchedulerTarget,
    client?: SchedulerClient,
  ) {
    super(target.groupName, client);
  }

  async put(spec: ScheduleSpec): Promise<'created' | 'updated'> {
    const input = this.request(spec);
    try {
      await this.client.send(new CreateScheduleCommand(input));
      return 'created';
    } catch (error) {
      if (!(error instanceof ConflictException)) throw this.failure(`could not create the schedule of "${spec.name}"`, error);
    }
    try {
      await this.client.send(new UpdateScheduleCommand(input));
      return 'updated';
    } catch (error) {
      throw this.failure(`could not update the schedule of "${spec.name}"`, error);
    }
  }

  async remove(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: name, GroupName: this.groupName }));
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw this.failure(`could not delete the schedule of "${name}"`, error);
    }
  }

  private request(spec: ScheduleSpec): CreateScheduleCommandInput {
    return {
      Name: spec.name,
      GroupName: this.groupName,
      Description: spec.description.slice(0, 512),
      ScheduleExpression: spec.cron,
      ScheduleExpressionTimezone: spec.timeZone,
      // A report that allows it is started anywhere in its window: a crowded minute spreads out at the source.
      FlexibleTimeWindow: spec.windowMinutes === undefined ? { Mode: 'OFF' } : { Mode: 'FLEXIBLE', MaximumWindowInMinutes: spec.windowMinutes },
      State: 'ENABLED',
      Target: {
        Arn: this.target.targetArn,
        RoleArn: this.target.roleArn,
        Input: spec.input,
        DeadLetterConfig: { Arn: this.target.deadLetterArn },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      },
    };
  }

}
