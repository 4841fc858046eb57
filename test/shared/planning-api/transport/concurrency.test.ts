import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../../../shared/planning-api/transport/concurrency';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createLimiter', () => {
  it('runs at most `limit` tasks at once and queues the rest', async () => {
    const limiter = createLimiter(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(limiter.active).toBe(2);
    expect(limiter.pending).toBe(1);

    gates[0]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[1]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(limiter.active).toBe(0);
  });

  it('starts waiting tasks in arrival order', async () => {
    const limiter = createLimiter(1);
    const order: string[] = [];
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const rest = ['a', 'b', 'c'].map((name) => limiter.run(() => Promise.resolve(void order.push(name))));
    gate.resolve();
    await Promise.all([first, ...rest]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.active).toBe(0);
    await expect(limiter.run(() => Promise.resolve('ok'))).resolves.toBe('ok');
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
  });
});
