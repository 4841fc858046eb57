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
  it('reserves no Lambda concurrency on any function', () => {
    const { template } = synthesize(loadInfraConfig(cdkJsonContext().reportExporter), { bundle: false });
    const functions = Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, { Properties: Record<string, unknown> }>);
    expect(functions.length).toBeGreaterThanOrEqual(4);
    expect(functions.filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined).map(([id]) => id)).toEqual([]);
  });
});
