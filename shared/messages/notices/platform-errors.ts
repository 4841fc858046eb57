/**
 * Failures of Lambda and Step Functions rather than of a step's code, by the platform's own error
 * names: the one table the fan-out's failure step (what failed, in words; whether another attempt
 * may pass) and the owners' notice (what to do) both read. Our own errors carry their meaning in
 * their class (core/errors.ts).
 */

const STOPPED_AT_A_LIMIT =
  "The run was stopped at a function's time or memory limit, although it was spread over several functions. If it keeps happening, ask the operators to narrow the report: fewer boards (one report per solution train), or CSV and Parquet without the workbook.";

export interface PlatformError {
  /** What happened, after the part that failed: "ran out of time: …". */
  readonly words: string;
  readonly retryable: boolean;
  /** What the owner can do about it. */
  readonly advice: string;
}

export const PLATFORM_ERRORS: Readonly<Record<string, PlatformError>> = {
  'States.Timeout': { words: 'ran out of time: the step reached its time limit', retryable: false, advice: STOPPED_AT_A_LIMIT },
  'Sandbox.Timedout': { words: 'ran out of time: Lambda stopped the function at its time limit', retryable: false, advice: STOPPED_AT_A_LIMIT },
  'Runtime.OutOfMemory': { words: 'ran out of memory: Lambda stopped the function', retryable: false, advice: STOPPED_AT_A_LIMIT },
  'Lambda.Unknown': { words: 'stopped without an answer from Lambda (most often out of time or memory)', retryable: false, advice: STOPPED_AT_A_LIMIT },
  'Lambda.TooManyRequestsException': {
    words: "could not start: Lambda had no concurrency free for the export function (its reserved concurrency, or the account's quota when none is reserved) through all retries",
    retryable: true,
    advice:
      "The exporter was busy with other exports for longer than the run could wait. Nothing to do if the next run passes; if it keeps happening, ask the operators for more concurrency: the account's Lambda concurrency quota, which the exporter shares with every function of the account unless it reserves its own (exportReservedConcurrency; none by default).",
  },
};

/** Step Functions' and Lambda's own error name prefixes; anything else was thrown by a step's code. */
export const PLATFORM_PREFIXES = ['States.', 'Lambda.', 'Sandbox.', 'Runtime.'] as const;
