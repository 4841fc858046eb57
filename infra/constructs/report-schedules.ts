import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SecureQueue } from './secure-queue';

export interface ReportSchedulesProps {
  /** The scheduled-runs queue every schedule sends its run to (scheduled-runs.ts). */
  readonly target: sqs.IQueue;
  /** The export function, which schedules made before the queue still invoke. */
  readonly exportFunction: lambda.Function;
}

/**
 * Where the reports' schedules live: a schedule group of the stack, the role Scheduler assumes to
 * send each run to the scheduled-runs queue, and the dead-letter queue for runs it could not deliver. The
 * schedules themselves are made by the definitions-sync function, one per stored report with a
 * schedule (shared/definitions/schedule-sync.ts), so adding a report needs no deploy. Deleting the
 * stack deletes the group and with it every schedule in it.
 */
export class ReportSchedules extends Construct {
  readonly group: scheduler.ScheduleGroup;
  readonly invokeRole: iam.Role;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ReportSchedulesProps) {
    super(scope, id);
    this.deadLetterQueue = new SecureQueue(this, 'DeadLetterQueue', {
      purpose: 'scheduled invocations EventBridge Scheduler could not deliver',
    }).queue;
    // Deleted with the stack (the L2's default keeps it): its name is the stack's, so a group left
    // behind would stop the next deploy of the same stack at "already exists". Its schedules are
    // made again by the definitions sync from the stored reports.
    this.group = new scheduler.ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    const stack = Stack.of(this);
    this.invokeRole = new iam.Role(this, 'InvokeRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        // Only schedules of this account's group may use it (Stack.of(this).account, not
        // Aws.ACCOUNT: in aws-cdk-lib 2.276 the latter is dropped from principal conditions).
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/*` }) },
        },
      }),
      description: 'EventBridge Scheduler: send the stored reports\' scheduled runs to the scheduled-runs queue',
    });
    props.target.grantSendMessages(this.invokeRole);
    // Schedules made before the queue invoke the function until definitions-sync writes them again
    // (docs/deploy.md, "Concurrency"): without this they would fail into the dead-letter queue meanwhile.
    // A sync writes a schedule's whole target anew, so a re-sync moves it onto the queue (schedule-sync's
    // test), but nothing re-syncs on deploy: the operator does, once. Drop this statement only when every
    // deployed stack has re-synced (or once a deploy re-syncs by itself), not before.
    // The unqualified function only (not grantInvoke, which adds every version and alias).
    this.invokeRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'InvokeExport', actions: ['lambda:InvokeFunction'], resources: [props.exportFunction.functionArn] }),
    );
    this.deadLetterQueue.grantSendMessages(this.invokeRole);
  }

  /**
   * The sync function: create, update, read and delete schedules of this group only, and hand
   * Scheduler the invoke role (iam:PassRole to Scheduler alone).
   */
  grantScheduleManager(role: iam.Role): void {
    const stack = Stack.of(this);
    const schedules = stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/*` });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ManageReportSchedules',
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
        resources: [schedules],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PassInvokeRole',
        actions: ['iam:PassRole'],
        resources: [this.invokeRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${this.group.scheduleGroupName}/*]`,
      reason: 'Schedules are named after the stored reports, which are added without a deploy; the wildcard stops at the stack\'s schedule group.',
    });
  }
}
