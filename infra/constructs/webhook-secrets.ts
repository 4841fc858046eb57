import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { WEBHOOK_SECRET_PREFIX } from '../../shared/core/names';
import type { Construct } from 'constructs';
import type { ConfiguredReport } from '../config';

/** The distinct secrets the configured reports (and their deliveries and alerts) keep their chat webhook URLs in (`delivery.channels[].webhook.secretId`, `alerts.to.channels[]…`). */
export function webhookSecretNames(reports: readonly ConfiguredReport[]): string[] {
  const names = reports.flatMap((r) =>
    [r.definition.delivery, r.definition.alerts?.to, ...(r.definition.deliveries ?? []).map((d) => d.delivery)].flatMap((delivery) =>
      (delivery?.channels ?? []).map((c) => c.webhook.secretId),
    ),
  );
  return [...new Set(names)].sort();
}

/**
 * Read access on exactly those secrets, by name (the grant covers `<name>-??????`, the suffix
 * Secrets Manager adds), and on nothing else: a definition cannot make the function read a secret
 * the stack was not deployed with. The operator creates each secret and puts the URLs in it.
 */
export function grantWebhookSecrets(
  scope: Construct,
  reports: readonly ConfiguredReport[],
  grantee: iam.Role,
  planningSecretName: string | undefined,
): void {
  grantWebhookSecretPrefix(scope, grantee, planningSecretName);
  for (const name of webhookSecretNames(reports)) {
    // Its https fields (the API's base URLs) would pass as webhooks: the report would be posted to the planning API.
    if (name === planningSecretName) {
      throw new Error(`delivery.channels names the planning API credentials secret "${name}" as a webhook secret; keep the webhook URLs in a secret of their own`);
    }
    const id = `WebhookSecret-${name.replace(/[^A-Za-z0-9]/g, '-')}`;
    secretsmanager.Secret.fromSecretNameV2(scope, id, name).grantRead(grantee);
  }
}

/**
 * Reports stored without a deploy may keep their webhook URLs in secrets named under
 * WEBHOOK_SECRET_PREFIX (`planning-report-exporter/webhooks/…`); read on those, and no others.
 */
function grantWebhookSecretPrefix(scope: Construct, grantee: iam.Role, planningSecretName: string | undefined): void {
  if (planningSecretName?.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new Error(`the planning API credentials secret "${planningSecretName}" is named under "${WEBHOOK_SECRET_PREFIX}", where every report may read webhook secrets; name it outside that prefix`);
  }
  const resource = Stack.of(scope).formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${WEBHOOK_SECRET_PREFIX}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  grantee.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ReadWebhookSecrets', actions: ['secretsmanager:GetSecretValue'], resources: [resource] }));
  Validations.of(grantee).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${WEBHOOK_SECRET_PREFIX}*]`,
    reason: `Reports are added without a deploy and name their chat webhook secrets; read is limited to secrets named under "${WEBHOOK_SECRET_PREFIX}".`,
  });
}
