import { runFannedOutJob } from '../../shared/fan-out/steps';
import { exportJobRequestSchema } from '../../shared/job/request';
import type { JobContext } from '../../shared/job/run-job';
import type { FanOutStarter } from '../../shared/job/stages/route';
import { errorChain, type InvocationFailure } from './async-invocations';

/**
 * The fan-out's state machine as the fleet meets it: started once per run (a second start of the same
 * name answers false, as Step Functions does), its steps run by the project's local driver
 * (runFannedOutJob: plan, workers, assembler) in this process, beside the export function's cap as the
 * state machine's own functions are. The fleet awaits `settled` before it counts.
 */
export interface FleetFanOut extends FanOutStarter {
  /** Resolves once every started fan-out has published or failed. */
  settled(): Promise<void>;
  /** Fan-outs started, and each one's time from its start to its assembler's end, ms. */
  readonly runs: { readonly name: string; readonly wallMs: number }[];
  /** Fan-outs whose assembler failed (the state machine's failure step would tell the owners). */
  readonly failures: InvocationFailure[];
}

export function fleetFanOut(context: () => JobContext, instant: number): FleetFanOut {
  const names = new Set<string>();
  const pending: Promise<void>[] = [];
  const runs: { name: string; wallMs: number }[] = [];
  const failures: InvocationFailure[] = [];
  const run = async (name: string, input: Record<string, unknown>): Promise<void> => {
    const started = Date.now();
    try {
      const outcome = await runFannedOutJob(exportJobRequestSchema.parse(input), context(), { boardsPerWorker: 2 });
      if (outcome.status === 'failed') throw new Error(`the fan-out's assembler failed: ${outcome.reason}`);
    } catch (error: unknown) {
      failures.push({ event: String(input.report), attempt: 1, atMs: Date.now() - instant, error: errorChain(error) });
    } finally {
      runs.push({ name, wallMs: Date.now() - started });
    }
  };
  return {
    runs,
    failures,
    start: (name, input) => {
      if (names.has(name)) return Promise.resolve(false);
      names.add(name);
      pending.push(run(name, input));
      return Promise.resolve(true);
    },
    settled: async () => {
      await Promise.all(pending);
    },
  };
}
