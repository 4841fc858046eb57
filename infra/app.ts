import { App } from 'aws-cdk-lib';
import { configContext, InfraConfigError, loadInfraConfig } from './config';
import { addReportExporter } from './report-exporter-app';

/**
 * Entry point of `cdk synth` / `cdk deploy` (cdk.json: `npx tsx infra/app.ts`). The stack is
 * environment-agnostic (no account/region, no lookups), so synth works offline; the CLI's
 * credentials pick the target at deploy time.
 */
const app = new App();
try {
  addReportExporter(app, loadInfraConfig(configContext((key) => app.node.tryGetContext(key) as unknown)));
  app.synth();
} catch (error) {
  if (!(error instanceof InfraConfigError)) throw error;
  // A configuration mistake is the operator's to fix: show the message, not a stack trace.
  console.error(error.message);
  process.exitCode = 1;
}
