import { ArnFormat, Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

export interface ReportFanOutProps {
  /** The export function: it runs every step (plan, work, assemble), told apart by `fanOut`. */
  readonly target: lambda.Function;
  /** Workers at once; with the plan and the assembler they fit the function's reserved concurrency. */
  readonly workers: number;
  readonly logRetention: logs.RetentionDays;
}

/**
 * The fan-out of a report too big for one function (shared/jobs/fan-out.ts, docs/deploy.md): plan
 * (the run id and the boards in chunks) → a Distributed Map of workers, each storing the planning
 * API's answers for its boards → the assembler, which runs the ordinary export over them and
 * publishes, delivers and tells the owners of a failure as every run does.
 *
 * The map tolerates every worker failing: a failed worker only leaves its boards for the assembler to
 * fetch itself, so the run still completes if it can within one function's time. Each step retries
 * Lambda's transient errors. The name is fixed so the export function can be told the ARN without a
 * reference (the state machine already references the function).
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
        retryOnServiceExceptions: true,
      });

    const plan = step('Plan', { 'fanOut': 'plan', 'report.$': '$.report', 'source': 'schedule', 'scheduledTime.$': '$.scheduledTime', 'runId.$': '$.runId' }, Duration.minutes(5));
    const work = step('FetchBoards', { 'fanOut': 'work', 'request.$': '$.request', 'boards.$': '$.boards' }, Duration.minutes(15));
    const workers = new sfn.DistributedMap(this, 'Workers', {
      itemsPath: sfn.JsonPath.stringAt('$.chunks'),
      itemSelector: { 'request.$': '$.request', 'boards.$': '$$.Map.Item.Value' },
      maxConcurrency: Math.max(1, props.workers),
      // A failed worker's boards are fetched by the assembler: the map never fails the run.
      toleratedFailurePercentage: 100,
      resultPath: sfn.JsonPath.DISCARD,
    });
    workers.itemProcessor(work);
    const assemble = step('Assemble', { 'fanOut': 'assemble', 'request.$': '$.request' }, Duration.minutes(15));
    const definition = plan.next(workers).next(assemble);

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.RETAIN });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout: Duration.hours(2),
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
