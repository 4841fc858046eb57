import { Stack } from 'aws-cdk-lib';
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as ses from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import type { MailEventsLambdaEnvironment } from '../../shared/core/config';
import type { DefinitionsBucket } from './definitions-bucket';
import { ExporterFunction } from './exporter-function';
import type { RunLedgerTable } from './run-ledger-table';

export interface ReportMailEventsProps {
  readonly repoRoot: string;
  readonly ledger: RunLedgerTable;
  readonly definitions: DefinitionsBucket;
  /** The verified identity the reports are sent from: the owners' notices go out through it too. */
  readonly sesIdentityArn: string;
  readonly mailFrom: string | undefined;
  readonly logRetention: logs.RetentionDays;
}

/**
 * Bounces and complaints of the reports' e-mail (docs/delivery.md): an SES configuration set every
 * report message is sent with, whose bounce and complaint events go to EventBridge, and a function
 * (lambdas/mail-events) that suppresses those recipients for their report and tells its owners once.
 * Large mailbox providers throttle or block senders that keep mailing dead or complaining addresses.
 */
export class ReportMailEvents extends Construct {
  readonly configurationSet: ses.ConfigurationSet;
  readonly handler: ExporterFunction;

  constructor(scope: Construct, id: string, props: ReportMailEventsProps) {
    super(scope, id);
    const name = `${Stack.of(this).stackName}-report-mail`.slice(0, 64);
    this.configurationSet = new ses.ConfigurationSet(this, 'Set', { configurationSetName: name });
    const bus = events.EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    this.configurationSet.addEventDestination('ToEventBridge', {
      destination: ses.EventDestination.eventBus(bus),
      events: [ses.EmailSendingEvent.BOUNCE, ses.EmailSendingEvent.COMPLAINT],
    });
    this.handler = new ExporterFunction(this, 'Handler', {
      repoRoot: props.repoRoot,
      entry: 'lambdas/mail-events/handler.ts',
      description: 'planning-report-exporter: mail-events (bounces and complaints suppress a recipient)',
      memorySize: 256,
      // The first event of a burst waits BURST_SETTLE_MS (20 s) for the rest before telling the owners once.
      timeout: Duration.seconds(60),
      logRetention: props.logRetention,
      environment: {
        LEDGER_TABLE: props.ledger.table.tableName,
        DEFINITIONS_BUCKET: props.definitions.bucket.bucketName,
        ...(props.mailFrom !== undefined && { MAIL_FROM: props.mailFrom }),
      } satisfies MailEventsLambdaEnvironment,
    });
    new events.Rule(this, 'Bounces', {
      description: 'SES bounces and complaints of the reports e-mail (its configuration set) to mail-events',
      eventPattern: {
        source: ['aws.ses'],
        detailType: ['Email Bounced', 'Email Complaint Received'],
        detail: { mail: { tags: { 'ses:configuration-set': [name] } } },
      },
      targets: [new targets.LambdaFunction(this.handler.function, { retryAttempts: 4, maxEventAge: Duration.hours(6) })],
    });
    const role = this.handler.role;
    props.ledger.grantSuppressItems(role);
    props.definitions.grantDefinitionReader(role);
    role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'TellOwners', actions: ['ses:SendEmail'], resources: [props.sesIdentityArn] }));
  }

  /** The ARN a SendEmail with this configuration set must be allowed on, beside the identity's. */
  get configurationSetArn(): string {
    return Stack.of(this).formatArn({ service: 'ses', resource: 'configuration-set', resourceName: this.configurationSet.configurationSetName });
  }
}
