import { onTestFinished, vi } from 'vitest';

/**
 * Sets Math.random() to 0 until the calling test ends, so the planning API client's full-jitter
 * backoff (random() × ceiling, shared/planning-api/transport/retry.ts), and any other jittered wait
 * drawn from it, is 0 ms between attempts, while every attempt is still made. For a test whose door (a command, the export
 * function) retries a dead or failing address with its real settings: the doors resolve no retry
 * setting a test could pass, and a test must not spend seconds in backoff it does not look at.
 * The in-process SES stand-in draws its message ids from Math.random too: they repeat meanwhile.
 */
export function zeroBackoffJitter(): void {
  const random = vi.spyOn(Math, 'random').mockReturnValue(0);
  onTestFinished(() => random.mockRestore());
}
