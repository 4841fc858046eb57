// @tier slow
import { readFileSync } from 'node:fs';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { cdkJsonContext, REPO_ROOT, synthesize, type Synthesized } from '../infra/support';

/**
 * One deploy story: the README's "Deploying" gives docs/deploy.md's checklist in short, the same steps
 * (their bold titles) in the same order, the deploy writing cdk-outputs.json in both; every output the two
 * read from cdk-outputs.json with jq is an output of the synthesized stack; and docs/deploy.md's alarms
 * table lists every alarm the stack synthesizes, once each.
 */
const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');

/** The text from a heading line to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0];
  const rest = text.slice(start + heading.length + 1);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The bold titles of the top-level numbered steps, without their closing punctuation. */
function stepTitles(text: string): string[] {
  return [...text.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)].map((m) => m[1]!.replace(/[.,:]$/, ''));
}

/** Outputs read from cdk-outputs.json: `jq -r .PlanningReportExporter.<Name> cdk-outputs.json`. */
function jqOutputs(text: string): string[] {
  return [...text.matchAll(/\.PlanningReportExporter\.([A-Za-z0-9]+)/g)].map((m) => m[1]!);
}

/** The first column of the table headed `| Alarm | Means | Look at |`: the alarm names in backticks. */
function alarmsTable(text: string): string[] {
  const table = /^\| Alarm \| Means \| Look at \|\n\|[- |]+\|\n((?:\|.*\|\n)+)/m.exec(text)?.[1] ?? '';
  return table.split('\n').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Za-z0-9]+)`/g)].map((m) => m[1]!));
}

const README = section(read('README.md'), '## Deploying');
const GUIDE = section(read('docs/deploy.md'), '## From an empty account to the first e-mail');
const DEPLOY = 'npx cdk deploy PlanningReportExporter --outputs-file cdk-outputs.json';

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize(loadInfraConfig(cdkJsonContext().reportExporter), { bundle: false });
}, 180_000); // a synth with cdk-nag: minutes on a loaded machine, as the stack test allows

describe('the deploy story', () => {
  it('gives the same steps in the same order in the README and docs/deploy.md', () => {
    const guide = stepTitles(GUIDE);
    expect(guide).toEqual([
      'Tools and credentials',
      'Bootstrap the account for the CDK',
      'An SES identity to send from',
      'The planning API credentials',
      'Configure the stack',
      'Deploy',
      'Push a report',
      'Preflight',
      'A first run on demand',
      'What to look at',
      'Give the report a schedule',
    ]);
    expect(stepTitles(README)).toEqual(guide);
  });

  it('deploys with the outputs written to cdk-outputs.json in both, at the Deploy step', () => {
    for (const [name, text] of [['README', README], ['docs/deploy.md', GUIDE]] as const) {
      const deployStep = text.split(/^(?=\d+\. \*\*)/m).find((step) => step.startsWith('6. **Deploy'));
      expect(deployStep, name).toContain(DEPLOY);
    }
  });

  it("names, in docs/deploy.md's clean-up section, every kind of resource the stack keeps on destroy, and deletes the schedule group", () => {
    const removing = section(read('docs/deploy.md'), '## Removing the stack');
    const resources = Object.values(synthesized.template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>);
    const kept = [...new Set(resources.filter((r) => r.DeletionPolicy === 'Retain').map((r) => r.Type))].sort();
    const words: Record<string, RegExp> = {
      'AWS::S3::Bucket': /reports bucket.*definitions bucket.*Athena results bucket/,
      'AWS::DynamoDB::Table': /run ledger table \(DynamoDB, \*\*deletion protection on\*\*\).*--no-deletion-protection-enabled/,
      'AWS::SecretsManager::Secret': /two secrets.*delete-secret/,
      'AWS::Logs::LogGroup': /log groups.*delete-log-group/,
      'AWS::KMS::Key': /KMS key.*schedule-key-deletion/,
    };
    expect(kept).toEqual(Object.keys(words).sort());
    for (const [type, said] of Object.entries(words)) expect(removing, type).toMatch(said);
    expect(kept).not.toContain('AWS::Scheduler::ScheduleGroup');
    expect(removing).toContain('**schedule group with every schedule in it**');
  });

  it('reads only outputs of the synthesized stack from cdk-outputs.json', () => {
    const outputs = Object.keys(synthesized.template.toJSON().Outputs as object);
    const named = [...jqOutputs(README), ...jqOutputs(read('docs/deploy.md'))];
    expect(named.length).toBeGreaterThan(4);
    expect(named.filter((name) => !outputs.includes(name))).toEqual([]);
  });

  it("lists every alarm of the stack in docs/deploy.md's alarms table, once each, and only RunLinkRefused above a threshold other than zero", () => {
    const alarms = synthesized.stack.alarms.node.children.filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm);
    expect(alarms.length).toBe(12);
    expect(alarmsTable(read('docs/deploy.md')).sort()).toEqual(alarms.map((a) => a.node.id).sort());
    const resources = synthesized.template.findResources('AWS::CloudWatch::Alarm') as Record<string, { Properties: { Threshold: number } }>;
    expect(Object.keys(resources)).toHaveLength(alarms.length);
    const aboveZero = alarms.filter((a) => resources[synthesized.stack.getLogicalId(a.node.defaultChild as cloudwatch.CfnAlarm)]!.Properties.Threshold !== 0);
    expect(aboveZero.map((a) => a.node.id)).toEqual(['RunLinkRefused']);
    expect(read('docs/deploy.md')).toContain('All alarms but `RunLinkRefused` fire when the value is above zero');
  });
});
