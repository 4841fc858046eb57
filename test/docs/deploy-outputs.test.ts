// @tier slow
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../cli/preflight-command';
import { loadInfraConfig } from '../../infra/config';
import { STACK_NAME } from '../../infra/report-exporter-app';
import { EXPECTED_OUTPUTS, MIN_BOOTSTRAP_VERSION } from '../../shared/preflight/stack-checks';
import { cdkJsonContext, REPO_ROOT, synthesize } from '../infra/support';

/**
 * The documents send people to the stack's outputs by name (`--secret-id <PlanningSecretId output>`), and
 * a name that is not an output sends them nowhere. They write an output in one of three forms, which this
 * test finds: `<Name output>` (a placeholder in a command), `` `Name` output ``, and "output `Name`"; and
 * docs/deploy.md lists them all in its outputs table. Every name in those forms must be an output of the
 * synthesized stack, and the table must list each output once.
 */
function outputMentions(text: string): string[] {
  const forms = [/<([A-Z][A-Za-z0-9]+) output>/g, /`([A-Z][A-Za-z0-9]+)` output\b/g, /\boutputs? `([A-Z][A-Za-z0-9]+)`/g];
  return forms.flatMap((form) => [...text.matchAll(form)].map((m) => m[1]!));
}

/** The first column of the table headed `| Output | Use |`: the output names in backticks, two to a row at most. */
function outputsTable(text: string): string[] {
  const table = /^\| Output \| Use \|\n\|[- |]+\|\n((?:\|.*\|\n)+)/m.exec(text)?.[1] ?? '';
  return table.split('\n').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Za-z0-9]+)`/g)].map((m) => m[1]!));
}

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');
const DOCUMENTS = ['README.md', 'DEVELOPERS.md', ...readdirSync(`${REPO_ROOT}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the stack outputs the documents name', () => {
  let outputs: string[];
  let template: Record<string, unknown>;
  beforeAll(() => {
    // The stack as cdk.json configures it, without bundling: outputs and rules do not depend on the code.
    const synthesized = synthesize(loadInfraConfig(cdkJsonContext().reportExporter), { bundle: false });
    template = synthesized.template.toJSON();
    outputs = Object.keys(template.Outputs as Record<string, unknown>).sort();
  }, 180_000); // a synth with cdk-nag: minutes on a loaded machine, as the stack test allows

  it('finds the names in each form, and would catch one that is not an output', () => {
    expect(outputMentions('--secret-id <PlanningSecretArn output> · the `LedgerTableName` output · (output `DefinitionsBucketName`)')).toEqual([
      'PlanningSecretArn',
      'LedgerTableName',
      'DefinitionsBucketName',
    ]);
    expect(outputs).not.toContain('PlanningSecretArn');
    expect(DOCUMENTS.flatMap((file) => outputMentions(read(file))).length).toBeGreaterThan(10);
  });

  it('are outputs of the synthesized stack, in every document', () => {
    const unknown = DOCUMENTS.flatMap((file) => outputMentions(read(file)).filter((name) => !outputs.includes(name)).map((name) => `${file}: ${name}`));
    expect(unknown).toEqual([]);
  });

  it("are all in docs/deploy.md's outputs table, once each, and nothing else is", () => {
    const table = outputsTable(read('docs/deploy.md'));
    expect([...table].sort()).toEqual(outputs);
  });

  it('include every output preflight reads, for the stack it checks by default and the bootstrap version its template requires', () => {
    expect(EXPECTED_OUTPUTS.filter((name) => !outputs.includes(name))).toEqual([]);
    expect(DEFAULT_STACK_NAME).toBe(STACK_NAME);
    // The rule the synthesizer adds refuses the versions below the minimum, by listing them.
    const rule = JSON.stringify((template.Rules as Record<string, unknown>).CheckBootstrapVersion);
    const refused = JSON.parse(/"Fn::Contains":\[(\[[^\]]*\])/.exec(rule)![1]!) as string[];
    expect(refused.map(Number)).toEqual(Array.from({ length: MIN_BOOTSTRAP_VERSION - 1 }, (_, i) => i + 1));
  });
});
