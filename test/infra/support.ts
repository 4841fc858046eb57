import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { PolicyViolation } from 'aws-cdk-lib';
import type { InfraConfig } from '../../infra/config';
import { addReportExporter } from '../../infra/report-exporter-app';
import type { ReportExporterStack } from '../../infra/report-exporter-stack';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The context of cdk.json (feature flags and the example config), as `cdk synth` sees it. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

export interface Synthesized {
  readonly app: App;
  readonly stack: ReportExporterStack;
  readonly template: Template;
}

/**
 * Builds the app exactly as infra/app.ts does (stack + cdk-nag plugin, cdk.json feature flags) and
 * synthesizes it; an unacknowledged cdk-nag error makes this throw. `bundle: false` skips esbuild
 * (CDK's own switch for stacks that are not being deployed) for variants that only check wiring.
 */
export function synthesize(config: InfraConfig, options: { bundle?: boolean } = {}): Synthesized {
  const context: Record<string, unknown> = { ...cdkJsonContext() };
  delete context.reportExporter;
  if (options.bundle === false) context[BUNDLING_STACKS] = [];
  const app = new App({ context });
  const stack = addReportExporter(app, config);
  return { app, stack, template: Template.fromStack(stack) };
}

/** cdk-nag AwsSolutions findings that are not acknowledged (errors and warnings alike). */
export function unacknowledgedNagFindings(app: App): PolicyViolation[] {
  return new AwsSolutionsChecks().validateScope(app).violations;
}

/** Readable form for assertion messages. */
export function describeFindings(findings: readonly PolicyViolation[]): string[] {
  return findings.flatMap((f) => f.violatingResources.map((r) => `${f.severity ?? ''} ${f.ruleName} at ${r.constructPath ?? r.resourceLogicalId ?? '?'}`));
}

/** Statements of every IAM policy in the template, with the policy's logical id. */
export function policyStatements(template: Template): { policy: string; statement: Record<string, unknown> }[] {
  const policies = template.findResources('AWS::IAM::Policy') as Record<string, { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }>;
  return Object.entries(policies).flatMap(([policy, r]) => r.Properties.PolicyDocument.Statement.map((statement) => ({ policy, statement })));
}

export function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** One state of an Amazon States Language definition, as far as the tests read it. */
export interface AslState {
  readonly Type: string;
  readonly Resource?: string;
  readonly Next?: string;
  readonly Retry?: readonly Record<string, unknown>[];
  readonly Catch?: readonly { readonly ErrorEquals: readonly string[]; readonly Next: string; readonly ResultPath?: string | null }[];
  readonly ItemProcessor?: { readonly States: Readonly<Record<string, AslState>> };
  readonly [field: string]: unknown;
}

/**
 * The state machine's definition as Step Functions reads it: its DefinitionString, an Fn::Join, with
 * each reference replaced by a placeholder (a function's ARN for `Fn::GetAtt [id, Arn]`, the logical
 * id for a `Ref`), so it parses as JSON and validates as ASL.
 */
export function renderedDefinition(template: Template): { StartAt: string; States: Record<string, AslState>; [field: string]: unknown } {
  const machines = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as { Properties: { DefinitionString: unknown } }[];
  if (machines.length !== 1) throw new Error(`expected one state machine, found ${machines.length}`);
  const definition = machines[0]!.Properties.DefinitionString;
  const text = typeof definition === 'string' ? definition : joined(definition as { 'Fn::Join': [string, unknown[]] });
  return JSON.parse(text) as ReturnType<typeof renderedDefinition>;
}

function joined(join: { 'Fn::Join': [string, unknown[]] }): string {
  const [separator, parts] = join['Fn::Join'];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const { Ref: ref, 'Fn::GetAtt': getAtt } = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      if (getAtt?.[1] === 'Arn') return `arn:aws:lambda:eu-central-1:123456789012:function:${getAtt[0]}`;
      if (ref !== undefined) return ref;
      throw new Error(`no placeholder for ${JSON.stringify(part)} in the state machine's definition`);
    })
    .join(separator);
}

/** Every state of a definition, those of a Map's item processor included, by name. */
export function allStates(states: Readonly<Record<string, AslState>>): [string, AslState][] {
  return Object.entries(states).flatMap(([name, state]) => [[name, state] as [string, AslState], ...(state.ItemProcessor ? allStates(state.ItemProcessor.States) : [])]);
}
