import * as z from 'zod';
import { FAN_OUT_PARTS, FAN_OUT_STEP } from '../core/names';
import { exportJobRequestSchema } from '../job/request';

/**
 * The steps of a fan-out's state machine, as the export function receives them (infra/constructs/
 * report-fan-out.ts builds these payloads): `plan` gets the job request and answers the plan;
 * `work` a worker's boards; `assemble` the planned request; `fail` what a Catch caught, with the
 * execution's input (the run as it was handed to the fan-out) and the part that failed.
 */
const plannedRequest = exportJobRequestSchema.extend({ report: z.string(), runId: z.string() });

/** What a Catch hands on (`ResultPath: $.error`): Step Functions' error name and its cause, for a function's error its JSON. */
export const caughtErrorSchema = z.object({ Error: z.string(), Cause: z.string().optional() });
export type CaughtError = z.infer<typeof caughtErrorSchema>;

export const fanOutStepSchema = z.discriminatedUnion('fanOut', [
  exportJobRequestSchema.extend({ fanOut: z.literal(FAN_OUT_STEP.plan) }),
  z.strictObject({ fanOut: z.literal(FAN_OUT_STEP.work), request: plannedRequest, boards: z.array(z.string()).min(1) }),
  /** `attempt`: the step's State.RetryCount (0 on its first try), so only its last attempt tells the owners of a retryable failure. */
  z.strictObject({ fanOut: z.literal(FAN_OUT_STEP.assemble), request: plannedRequest, attempt: z.number().int().nonnegative().optional() }),
  z.strictObject({ fanOut: z.literal(FAN_OUT_STEP.fail), request: plannedRequest, failed: z.enum(FAN_OUT_PARTS), error: caughtErrorSchema }),
]);
export type FanOutStep = z.infer<typeof fanOutStepSchema>;

/** The assembler's tries: the first and the state machine's two retries of its retryable failure (ASSEMBLER_RETRY). */
export const ASSEMBLER_ATTEMPTS = 3;
export type FanOutFailure = Extract<FanOutStep, { fanOut: 'fail' }>;

/** Whether an event is a fan-out step (it names one), rather than an export job request. */
export function isFanOutStep(event: unknown): boolean {
  return typeof event === 'object' && event !== null && 'fanOut' in event;
}
