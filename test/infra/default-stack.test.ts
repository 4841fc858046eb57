// @tier slow
import { describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { cdkJsonContext, synthesize } from './support';

/**
 * The stack as cdk.json configures it deploys where a first deploy happens: a new account's Lambda
 * concurrency quota is 10, and Lambda refuses any reservation that leaves fewer than 10 unreserved,
 * so the default reserves nothing (docs/deploy.md, "Concurrency"). Wiring only: no bundling.
 */
describe('the stack of the default cdk.json', () => {
  it('reserves no Lambda concurrency on any function, and synthesizes without calling a deprecated CDK API', () => {
    // jsii's switch: a deprecated call throws (naming it) instead of printing a [WARNING] on every synth.
    const saved = process.env.JSII_DEPRECATED;
    process.env.JSII_DEPRECATED = 'fail';
    let template;
    try {
      ({ template } = synthesize(loadInfraConfig(cdkJsonContext().reportExporter), { bundle: false }));
    } finally {
      if (saved === undefined) delete process.env.JSII_DEPRECATED;
      else process.env.JSII_DEPRECATED = saved;
    }
    const functions = Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, { Properties: Record<string, unknown> }>);
    expect(functions.length).toBeGreaterThanOrEqual(4);
    expect(functions.filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined).map(([id]) => id)).toEqual([]);
  });
});
