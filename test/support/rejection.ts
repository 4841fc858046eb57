/**
 * The error a promise rejects with, for tests that check more than `rejects.toThrow` can:
 * its class, cause chain and serialised form. Fails the test when the promise fulfils.
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => ({ fulfilled: true as const }),
    (error: unknown) => ({ fulfilled: false as const, error }),
  );
  if (outcome.fulfilled) throw new Error('expected a rejection, the promise fulfilled');
  if (!(outcome.error instanceof Error)) throw new Error(`expected an Error, got ${String(outcome.error)}`);
  return outcome.error;
}
