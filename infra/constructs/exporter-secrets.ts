import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface ExporterSecretsProps {
  /** An existing secret with the planning API credentials; without it one is created. */
  readonly planningSecretName?: string;
}

/** Field names of the link-key secret as generated; see docs/deploy.md for turning it into the key set. */
export const GENERATED_LINK_KEY_FIELDS = { id: 'currentId', secret: 'currentSecret', initialId: 'k1' } as const;

/**
 * The planning API credentials and the key that signs e-mail links. No secret value is in code or
 * in the template: created secrets get a generated value that the operator replaces (docs/deploy.md).
 */
export class ExporterSecrets extends Construct {
  readonly planningSecret: secretsmanager.ISecret;
  /** What PLANNING_SECRET_ID is set to: the ARN of a created secret, the name of a referenced one. */
  readonly planningSecretId: string;
  readonly linkKeySecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: ExporterSecretsProps) {
    super(scope, id);

    if (props.planningSecretName !== undefined) {
      // By name, so the ARN's random suffix need not be known; the grant covers `<name>-??????`.
      this.planningSecret = secretsmanager.Secret.fromSecretNameV2(this, 'PlanningApiCredentials', props.planningSecretName);
      this.planningSecretId = props.planningSecretName;
    } else {
      const created = new secretsmanager.Secret(this, 'PlanningApiCredentials', {
        description: 'planning-report-exporter: planning API credentials JSON (email, apiKey, baseUrl, legacyBaseUrl, companyPrefix). Replace the generated placeholder; see docs/deploy.md.',
        // Empty fields make the Lambda report "secret ... is missing fields email, apiKey, ..." until
        // the operator puts the real document; the generated key only exists because Secrets
        // Manager needs something to generate.
        generateSecretString: {
          secretStringTemplate: JSON.stringify({ email: '', apiKey: '', baseUrl: '', legacyBaseUrl: '', companyPrefix: '' }),
          generateStringKey: 'placeholder',
          excludePunctuation: true,
          passwordLength: 16,
        },
        // The operator's credentials must survive a stack replacement.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'The API key is issued by the planning tool, not by AWS; there is no rotation Lambda that could create a new one. Rotation is a manual put-secret-value (docs/deploy.md), and the Lambdas re-read the secret on a 401.',
      });
      // aws-cdk-lib declares its classes without exactOptionalPropertyTypes; the class is the interface.
      this.planningSecret = created as secretsmanager.ISecret;
      this.planningSecretId = created.secretArn;
    }

    // generateSecretString can only add one top-level string key to a flat template, so the nested
    // `{ current: { id, secret } }` shape of linkKeySetSchema cannot be generated here. What is
    // generated is a flat `{ currentId, currentSecret }` with a strong random secret; docs/deploy.md
    // shows the one command that turns it into the key set (or the Lambda accepts the flat form).
    this.linkKeySecret = new secretsmanager.Secret(this, 'LinkSigningKey', {
      description: 'planning-report-exporter: HMAC key set for e-mail download links, {"current":{"id","secret"},"previous":{...}}. See docs/deploy.md.',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ [GENERATED_LINK_KEY_FIELDS.id]: GENERATED_LINK_KEY_FIELDS.initialId }),
        generateStringKey: GENERATED_LINK_KEY_FIELDS.secret,
        // 64 characters of [A-Za-z0-9]: ~380 bits, above the 32-byte minimum of the HMAC key.
        passwordLength: 64,
        excludePunctuation: true,
        includeSpace: false,
      },
      // Deleting the key invalidates every link in every e-mail already sent.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.linkKeySecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotation needs the old key kept as "previous" until every link signed with it has expired (up to 90 days), which a single-value rotation Lambda cannot express; rotation is the documented manual current-to-previous procedure (docs/deploy.md).',
    });
  }
}
