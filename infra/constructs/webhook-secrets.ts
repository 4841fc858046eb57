import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { ConfiguredReport } from '../config';

/** The distinct secrets the configured reports keep their chat webhook URLs in (`delivery.channels[].webhook.secretId`). */
export function webhookSecretNames(reports: readonly ConfiguredReport[]): string[] {
  const names = reports.flatMap((r) => (r.definition.delivery?.channels ?? []).map((c) => c.webhook.secretId));
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
  grantee: iam.IGrantable,
  planningSecretName: string | undefined,
): void {
  for (const name of webhookSecretNames(reports)) {
    // Its https fields (the API's base URLs) would pass as webhooks: the report would be posted to the planning API.
    if (name === planningSecretName) {
      throw new Error(`delivery.channels names the planning API credentials secret "${name}" as a webhook secret; keep the webhook URLs in a secret of their own`);
    }
    const id = `WebhookSecret-${name.replace(/[^A-Za-z0-9]/g, '-')}`;
    secretsmanager.Secret.fromSecretNameV2(scope, id, name).grantRead(grantee);
  }
}
