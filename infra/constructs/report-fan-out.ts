import { ArnFormat, Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { RetryableExportError } from '../../shared/core/errors';
import { FAN_OUT_STEP, type FanOutPart } from '../../shared/core/names';
import { ASSEMBLER_ATTEMPTS } from '../../shared/fan-out/event';

/** Lambda's own transient failures (what CDK's retryOnServiceExceptions retries), retried at once and briefly. */
export const SERVICE_RETRY: sfn.RetryProps = {
  errors: ['Lambda.ClientExecutionTimeoutException', 'Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException'],
  interval: Duration.seconds(2),
  backoffRate: 2,
  maxAttempts: 6,
  jitterStrategy: sfn.JitterType.FULL,
};

/**
 * Throttling: every reserved slot of the export function is taken (scheduled and on-demand exports,
 * another fan-out). A slot frees when an export ends, within its 15 minutes at the latest, so the
 * step waits longer than that: up to 10, 20, 40, 80 s, then up to 2 minutes, 20 times (at most 34.5
 * minutes, about half of that with full jitter, which keeps waiting steps from coming back together).
 */
export const THROTTLING_RETRY: sfn.RetryProps = {
  errors: ['Lambda.TooManyRequestsException'],
  interval: Duration.seconds(10),
  backoffRate: 2,
  maxDelay: Duration.minutes(2),
  maxAttempts: 20,
  jitterStrategy: sfn.JitterType.FULL,
};

/**
 * The assembler's retryable failure (the planning API down for a while): retried twice, a minute
 * apart or more, as Lambda retries a scheduled run on the single path. Each try is told its
 * State.RetryCount, so only the last tells the owners, and the failure step does not tell it again.
 */
const ASSEMBLER_RETRY: sfn.RetryProps = {
  errors: [RetryableExportError.errorName],
  interval: Duration.minutes(1),
  backoffRate: 2,
  maxAttempts: ASSEMBLER_ATTEMPTS - 1,
  jitterStrategy: sfn.JitterType.FULL,
};

export interface ReportFanOutProps {
  /** The export function: it runs every step (plan, work, assemble, fail), told apart by `fanOut`. */
  readonly target: lambda.Function;
  /** Workers at once (config `fanOutWorkers`): the bound on one fan-out's share of the planning API (and, with a reservation, of its slots). */
  readonly workers: number;
  readonly logRetention: logs.RetentionDays;
}

/**
 * The fan-out of a report too big for one function (shared/fan-out/steps.ts, docs/deploy.md): plan
 * (the run id and the boards in chunks) → a Distributed Map of workers, each storing the planning
 * API's answers for its boards → the assembler, which runs the ordinary export over them and
 * publishes, delivers and tells the owners of a failure as every run does.
 *
 * A failed worker only leaves its boards for the assembler to fetch itself, so the run still completes
 * if it can within one function's time. Every Lambda task retries throttling and Lambda's transient
 * errors with jittered backoff; whatever still fails in the plan, the map or the assembler is caught
 * and handed to the failure step (`fanOut: 'fail'`), which releases the run's lease, tells the owners
 * and publishes ReportFailed; the execution then fails with what failed as its cause. The name is
 * fixed so the export function can be told the ARN without a reference (the state machine already
 * references the function).
 */
export class ReportFanOut extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly stateMachineName: string;

  constructor(scope: Construct, id: string, props: ReportFanOutProps) {
    super(scope, id);
    this.stateMachineName = ReportFanOut.nameIn(Stack.of(this));
    const step = (name: string, payload: Record<string, unknown>, timeout: Duration) =>
      new tasks.LambdaInvoke(this, name, {
        lambdaFunction: props.target,
        payload: sfn.TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        taskTimeout: sfn.Timeout.duration(timeout),
        // Replaced by SERVICE_RETRY, which adds jitter, after THROTTLING_RETRY.
        retryOnServiceExceptions: false,
      })
        .addRetry(THROTTLING_RETRY)
        .addRetry(SERVICE_RETRY);
    const caught = { errors: [sfn.Errors.ALL], resultPath: '$.error' };

    // The failure step is told the execution's input (the run), which part failed and the caught error.
    const tellFailure = step(
      'TellFailure',
      { 'fanOut': FAN_OUT_STEP.fail, 'request.$': '$$.Execution.Input', 'failed.$': '$.failed', 'error.$': '$.error' },
      Duration.minutes(5),
    );
    const runFailed = new sfn.Fail(this, 'RunFailed', { error: 'FanOutFailed', causePath: sfn.JsonPath.stringAt('$.reason') });
    tellFailure.addCatch(
      new sfn.Fail(this, 'FailureUntold', {
        error: 'FanOutFailureUntold',
        cause: 'The fan-out failed and so did its failure step: the owners were not told and no ReportFailed was published. The execution history says which step failed and why.',
      }),
      { errors: [sfn.Errors.ALL], resultPath: '$.untold' },
    );
    tellFailure.next(runFailed);
    const failed = (part: FanOutPart, id: string) => new sfn.Pass(this, id, { parameters: { 'failed': part, 'error.$': '$.error' } }).next(tellFailure);

    const plan = step(
      'Plan',
      { 'fanOut': FAN_OUT_STEP.plan, 'report.$': '$.report', 'source': 'schedule', 'scheduledTime.$': '$.scheduledTime', 'runId.$': '$.runId' },
      Duration.minutes(5),
    ).addCatch(failed('plan', 'PlanFailed'), caught);
    // A failed worker's boards are fetched by the assembler: a worker's failure ends its item, not the run.
    const work = step('FetchBoards', { 'fanOut': FAN_OUT_STEP.work, 'request.$': '$.request', 'boards.$': '$.boards' }, Duration.minutes(15)).addCatch(
      new sfn.Pass(this, 'BoardsLeftToAssembler'),
      { errors: [sfn.Errors.ALL], resultPath: '$.error' },
    );
    const workers = new sfn.DistributedMap(this, 'Workers', {
      itemsPath: sfn.JsonPath.stringAt('$.chunks'),
      itemSelector: { 'request.$': '$.request', 'boards.$': '$$.Map.Item.Value' },
      maxConcurrency: Math.max(1, props.workers),
      // Items end well whatever their worker did (its Catch); the map itself failing (Step Functions could not run it) is caught.
      toleratedFailurePercentage: 100,
      resultPath: sfn.JsonPath.DISCARD,
    });
    workers.itemProcessor(work);
    workers.addCatch(failed('workers', 'WorkersFailed'), caught);
    const assemble = step('Assemble', { 'fanOut': FAN_OUT_STEP.assemble, 'request.$': '$.request', 'attempt.$': '$$.State.RetryCount' }, Duration.minutes(15))
      .addRetry(ASSEMBLER_RETRY)
      .addCatch(failed('assemble', 'AssembleFailed'), caught);
    // The assembler's job answers a failure it will not retry (a bad definition, 401): it told it; the execution fails with its reason.
    const outcome = new sfn.Choice(this, 'RunOutcome')
      .when(sfn.Condition.and(sfn.Condition.isPresent('$.status'), sfn.Condition.stringEquals('$.status', 'failed')), runFailed)
      .otherwise(new sfn.Succeed(this, 'Done'));
    const definition = plan.next(workers).next(assemble).next(outcome);

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.RETAIN });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      // Past every step's own limits and retries (each throttled step may wait ~35 minutes, the
      // assembler run three times), so a failure is always caught and told: no Catch sees the
      // execution's own timeout.
      timeout: Duration.hours(4),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    this.acknowledge(props.target);
  }

  /** The state machine's name in a stack: fixed, so its ARN is known without a reference. */
  static nameIn(stack: Stack): string {
    return `${stack.stackName}-fan-out`.slice(0, 80);
  }

  /** The ARN of the state machine of a stack, built from its name. */
  static arnIn(stack: Stack): string {
    return stack.formatArn({ service: 'states', resource: 'stateMachine', resourceName: ReportFanOut.nameIn(stack), arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  }

  /** The export function may start executions of this state machine and no other. */
  grantStart(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'StartFanOut', actions: ['states:StartExecution'], resources: [ReportFanOut.arnIn(Stack.of(this))] }),
    );
  }

  private acknowledge(target: lambda.Function): void {
    const stack = Stack.of(this);
    const functionId = stack.getLogicalId(target.node.defaultChild as CfnElement);
    const machineId = stack.getLogicalId(this.stateMachine.node.defaultChild as CfnElement);
    const executions = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${machineId}"}]}]}`;
    const acknowledgements = [
      {
        id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
        reason: 'LambdaInvoke grants lambda:InvokeFunction on the export function and its qualified ARNs (`<arn>:*`); nothing else is reachable.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${executions}:*]`,
        reason: "A Distributed Map runs its items as child executions of this state machine: it describes and stops this state machine's own executions, whose names it generates.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::${executions}/*:*]`,
        reason: "The Distributed Map's child executions (`<execution>/<map run>:<child>`), generated names under this state machine only.",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray (PutTraceSegments, GetSamplingRules, …) and CloudWatch Logs delivery (CreateLogDelivery, DescribeLogGroups, …) for Step Functions have no resource-level permissions.',
      },
    ];
    for (const ack of acknowledgements) Validations.of(this.stateMachine).acknowledge(ack);
  }
}
