import * as z from 'zod';
import { exportJobRequestSchema } from './ports';

/**
 * The steps of a fan-out's state machine, as the export function receives them (infra/constructs/
 * report-fan-out.ts builds these payloads): `plan` gets the job request and answers the plan;
 * `work` a worker's boards; `assemble` the planned request.
 */
const plannedRequest = exportJobRequestSchema.extend({ report: z.string(), runId: z.string() });

export const fanOutStepSchema = z.discriminatedUnion('fanOut', [
  exportJobRequestSchema.extend({ fanOut: z.literal('plan') }),
  z.strictObject({ fanOut: z.literal('work'), request: plannedRequest, boards: z.array(z.string()).min(1) }),
  z.strictObject({ fanOut: z.literal('assemble'), request: plannedRequest }),
]);
export type FanOutStep = z.infer<typeof fanOutStepSchema>;

/** Whether an event is a fan-out step (it names one), rather than an export job request. */
export function isFanOutStep(event: unknown): boolean {
  return typeof event === 'object' && event !== null && 'fanOut' in event;
}

/** Starts a fan-out's state machine for a run (the adapter: step-functions-starter.ts). */
export interface FanOutStarter {
  /** Starts it once per run: a second start of the same run finds the first and returns false. */
  start(name: string, input: Record<string, unknown>): Promise<boolean>;
}
