import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createPowertools, withLifecycle } from '../../lambdas/lifecycle';

const context = {
  functionName: 'export-report',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:export-report',
  memoryLimitInMB: '1024',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

function spiedPowertools() {
  const powertools = createPowertools();
  powertools.metrics.setThrowOnEmptyMetrics(false);
  const published = vi.spyOn(powertools.metrics, 'publishStoredMetrics').mockReturnValue(powertools.metrics);
  const resets = vi.spyOn(powertools.logger, 'resetKeys');
  return { powertools, published, resets };
}

describe('the handler lifecycle', () => {
  it('returns the handler result, flushes metrics and clears the request keys', async () => {
    const { powertools, published, resets } = spiedPowertools();
    const handler = withLifecycle(powertools, async (event: { n: number }) => event.n * 2);
    await expect(handler({ n: 21 }, context)).resolves.toBe(42);
    expect(published).toHaveBeenCalledTimes(1);
    expect(resets).toHaveBeenCalled();
  });

  it('flushes metrics and clears the request keys also when the handler throws', async () => {
    const { powertools, published, resets } = spiedPowertools();
    const failure = new Error('export failed');
    const handler = withLifecycle(powertools, async () => {
      powertools.logger.appendKeys({ report: 'acme' });
      throw failure;
    });
    await expect(handler({}, context)).rejects.toBe(failure);
    expect(published).toHaveBeenCalledTimes(1);
    expect(resets).toHaveBeenCalled();
  });

  it('adds the Lambda context to the logger for every invocation', async () => {
    const { powertools } = spiedPowertools();
    const addContext = vi.spyOn(powertools.logger, 'addContext');
    const handler = withLifecycle(powertools, async () => 'ok');
    await handler({}, context);
    await handler({}, { ...context, awsRequestId: 'req-2' });
    expect(addContext.mock.calls.map(([c]) => c.awsRequestId)).toEqual(['req-1', 'req-2']);
  });
});
