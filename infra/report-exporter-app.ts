import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { InfraConfig } from './config';
import { ReportExporterStack } from './report-exporter-stack';

export const STACK_NAME = 'PlanningReportExporter';

/**
 * Adds what `cdk synth` builds to an app: the stack, and cdk-nag's AwsSolutions pack as a
 * validation plugin, so any unacknowledged finding fails synthesis (and `npm run synth` in CI).
 * Tests build their app through this function too.
 */
export function addReportExporter(app: App, config: InfraConfig, options: { repoRoot?: string } = {}): ReportExporterStack {
  const stack = new ReportExporterStack(app, STACK_NAME, {
    config,
    description: 'planning-report-exporter: scheduled and on-demand exports of planning data to Excel/CSV in S3',
    ...(options.repoRoot !== undefined && { repoRoot: options.repoRoot }),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
