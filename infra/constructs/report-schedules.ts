import { Duration, Stack, TimeZone, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ConfiguredReport } from '../config';
import { SecureQueue } from './secure-queue';

export interface ReportSchedulesProps {
  readonly reports: readonly ConfiguredReport[];
  readonly target: lambda.Function;
}

/** Payload of a scheduled invocation (the export handler's ExportJobRequest). */
export function schedulePayload(report: string): Record<string, string> {
  return {
    report,
    source: 'schedule',
    // Filled in by Scheduler per invocation: retries of one run keep the same scheduled time, so
    // the handler derives the same run id and a retry is idempotent.
    scheduledTime: scheduler.ContextAttribute.scheduledTime,
    executionId: scheduler.ContextAttribute.executionId,
  };
}

/**
 * One EventBridge Scheduler schedule per report that has one. Scheduler invokes the function
 * asynchronously, so its retry policy only covers failures to hand the event to Lambda (throttling,
 * service errors); failures inside the function are retried by the function's async invoke config.
 * Events Scheduler could not deliver go to the dead-letter queue.
 */
export class ReportSchedules extends Construct {
  readonly deadLetterQueue: sqs.Queue;
  /** Schedules by report name. */
  readonly schedules: ReadonlyMap<string, scheduler.Schedule>;

  constructor(scope: Construct, id: string, props: ReportSchedulesProps) {
    super(scope, id);
    // Created even without scheduled reports, so the alarm and the output are always there.
    this.deadLetterQueue = new SecureQueue(this, 'DeadLetterQueue', {
      purpose: 'scheduled invocations EventBridge Scheduler could not deliver',
    }).queue;

    const schedules = new Map<string, scheduler.Schedule>();
    this.schedules = schedules;
    const scheduled = props.reports.flatMap((r) => (r.schedule === null ? [] : [{ name: r.definition.name, ...r.schedule }]));
    if (scheduled.length === 0) return;

    // One role for all schedules, assumable only by Scheduler on behalf of this account. Created
    // here rather than by LambdaInvoke so the permission it gets can be acknowledged precisely.
    const role = new iam.Role(this, 'InvokeRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        // Stack.of(this).account, not Aws.ACCOUNT: in aws-cdk-lib 2.276 the latter is dropped from
        // principal conditions, leaving an empty StringEquals (the test checks the condition).
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invoke export-report for the configured report schedules',
    });
    const functionId = Stack.of(this).getLogicalId(props.target.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason: 'LambdaInvoke always grants lambda:InvokeFunction on the function and its qualified ARNs (`<arn>:*`: versions and aliases) of this one function; nothing else is reachable.',
    });

    for (const { name, cron, timeZone } of scheduled) {
      const schedule = new scheduler.Schedule(this, `Schedule-${name}`, {
        description: `planning-report-exporter: export "${name}" ${cron} ${timeZone}`,
        schedule: scheduler.ScheduleExpression.expression(cron, TimeZone.of(timeZone)),
        // A report is expected at the configured minute, not somewhere in a window.
        timeWindow: scheduler.TimeWindow.off(),
        target: new LambdaInvoke(props.target, {
          input: scheduler.ScheduleTargetInput.fromObject(schedulePayload(name)),
          role,
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 2,
          // A report delivered more than an hour late is better re-run by hand than sent silently.
          maxEventAge: Duration.hours(1),
        }),
      });
      schedules.set(name, schedule);
    }
  }
}
