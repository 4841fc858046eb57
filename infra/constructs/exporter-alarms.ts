import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface ExporterAlarmsProps {
  readonly alarmEmail?: string;
}

/**
 * The alarm topic and a helper to alarm on "anything above zero". The topic is encrypted with a
 * customer managed key because CloudWatch cannot publish to a topic encrypted with the AWS managed
 * SNS key (its key policy cannot grant cloudwatch.amazonaws.com).
 */
export class ExporterAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ExporterAlarmsProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'TopicKey', {
      description: 'planning-report-exporter: encrypts the alarm topic',
      enableKeyRotation: true,
    });
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // In a key policy "*" means this key.
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'planning-report-exporter alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.action = new SnsAction(this.topic);
  }

  /** An alarm when `metric` is above zero in any 5-minute period; no data (quiet times) is OK. */
  alarmAboveZero(id: string, metric: cloudwatch.IMetric, description: string): cloudwatch.Alarm {
    return this.alarmAbove(id, metric, 0, description);
  }

  /** An alarm when `metric` is above `threshold` in any period; no data is OK. */
  alarmAbove(id: string, metric: cloudwatch.IMetric, threshold: number, description: string): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    return alarm;
  }
}

export const FIVE_MINUTES = Duration.minutes(5);
