// @tier slow
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { asArray, describeFindings, policyStatements, synthesize, unacknowledgedNagFindings, type Synthesized } from './support';

/**
 * The minimal configuration: a referenced planning secret, no SES, no alarm address, no scheduled
 * report. Only wiring is checked here, so esbuild is skipped (the main test bundles for real).
 */
let synthesized: Synthesized;

beforeAll(() => {
  synthesized = synthesize(
    loadInfraConfig({
      reports: [{ definition: { name: 'on-demand', datasets: { risks: {} } }, schedule: null }],
      planningSecretName: 'prod/planning-api',
    }),
    { bundle: false },
  );
}, 120_000);

/** The exporter's functions (aws-cdk-lib's deploy-time handlers have no environment of ours). */
function ourFunctions(): { Properties: { Environment: { Variables: Record<string, unknown> } } }[] {
  return Object.values(synthesized.template.findResources('AWS::Lambda::Function')).filter((fn) =>
    String(fn.Properties.Description ?? '').startsWith('planning-report-exporter:'),
  ) as never;
}

describe('minimal configuration', () => {
  it('references the planning secret by name instead of creating one', () => {
    synthesized.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    const fns = ourFunctions();
    expect(fns).toHaveLength(3);
    // Only the export function reads the planning credentials; the API and sync functions are not told where they are.
    expect(fns.map((fn): unknown => fn.Properties.Environment.Variables.PLANNING_SECRET_ID).sort()).toEqual(['prod/planning-api', undefined, undefined]);

    const secretReads = policyStatements(synthesized.template)
      .filter(({ statement }) => asArray(statement.Action as string | string[]).includes('secretsmanager:GetSecretValue'))
      .flatMap(({ statement }) => asArray(statement.Resource).map((r) => JSON.stringify(r)));
    expect(secretReads.filter((r) => r.includes('secret:prod/planning-api-??????'))).toHaveLength(1);
  });

  it('has no SES permission and no MAIL_FROM without an SES identity', () => {
    const ses = policyStatements(synthesized.template).filter(({ statement }) => JSON.stringify(statement.Action).includes('ses:'));
    expect(ses).toEqual([]);
    for (const fn of ourFunctions()) {
      expect(fn.Properties.Environment.Variables.MAIL_FROM).toBeUndefined();
    }
  });

  it('creates no schedule at deploy, but the group, the invoke role and the queues a pushed report needs', () => {
    synthesized.template.resourceCountIs('AWS::Scheduler::Schedule', 0);
    synthesized.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    synthesized.template.resourcePropertiesCountIs(
      'AWS::IAM::Role',
      { AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })] } },
      1,
    );
    // Failed exports, Scheduler's dead letters, sync events EventBridge could not hand over, the
    // scheduled runs' queue and its dead letters.
    synthesized.template.resourceCountIs('AWS::SQS::Queue', 5);
  });

  it('creates the alarm topic without subscriptions', () => {
    synthesized.template.resourceCountIs('AWS::SNS::Topic', 1);
    synthesized.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('has no unacknowledged cdk-nag findings either', () => {
    expect(describeFindings(unacknowledgedNagFindings(synthesized.app))).toEqual([]);
  });
});
