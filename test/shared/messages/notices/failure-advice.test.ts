import { describe, expect, it } from 'vitest';
import { adviceFor } from '../../../../shared/messages/notices/failure-notice';

describe("the owners' advice for a failure Lambda or Step Functions reports", () => {
  it('for a throttled export names the account quota, since the stack reserves no concurrency unless told to', () => {
    const advice = adviceFor({ errorType: 'Lambda.TooManyRequestsException', retryable: true });
    expect(advice).toMatch(/busy with other exports/);
    expect(advice).toMatch(/account's Lambda concurrency quota/);
    expect(advice).toMatch(/exportReservedConcurrency; none by default/);
  });

  it('for a run stopped at a limit differs from the throttled one', () => {
    expect(adviceFor({ errorType: 'States.Timeout', retryable: false })).not.toEqual(adviceFor({ errorType: 'Lambda.TooManyRequestsException', retryable: true }));
  });
});
