/**
 * Names the runtime and the stack must agree on, in one place: the handlers publish metrics and
 * read ledger keys under these names, and the stack alarms on those metrics and grants access to
 * those keys. Renaming one here renames both sides; a name typed twice would leave an alarm that
 * never fires or a permission that no longer matches.
 */

/** Powertools `service`: the default dimension of every custom metric, and the alarms' dimension. */
export const SERVICE_NAME = 'planning-report-exporter';

/** CloudWatch namespace of the custom metrics. */
export const METRICS_NAMESPACE = 'PlanningReportExporter';

/** Source of the events the export function puts on the bus. */
export const EVENT_SOURCE = 'planning-report-exporter';

/** The bus the events go to unless EVENT_BUS_NAME says otherwise. */
export const DEFAULT_EVENT_BUS_NAME = 'default';

/** Root of everything the Lambdas write in the bucket unless REPORTS_PREFIX says otherwise. */
export const DEFAULT_REPORTS_PREFIX = 'reports';

/**
 * Secrets named under this prefix hold chat webhook URLs; the export function may read them, so a
 * report stored without a deploy can post to a channel. Nothing else may be named under it.
 */
export const WEBHOOK_SECRET_PREFIX = 'planning-report-exporter/webhooks/';

/** The custom metrics the handlers publish (export-report, export-api, definitions-sync). */
export const METRIC = {
  ExportSucceeded: 'ExportSucceeded',
  /** An export failed for good: a failure no retry mends (a bad definition), or its run's last attempt failed. Alarmed: one per failed run. */
  ExportFailed: 'ExportFailed',
  /** An attempt failed and another follows (a throttle, a blip): counted, not alarmed; ExportFailed counts the run if the last fails too. */
  ExportRetried: 'ExportRetried',
  ExportSkipped: 'ExportSkipped',
  ExportedRows: 'ExportedRows',
  ExportDuration: 'ExportDuration',
  ApiRequests: 'ApiRequests',
  ApiRetries: 'ApiRetries',
  /** A run link was refused (bad signature, expired, revoked): the export API's one custom series. Alarmed. */
  RunLinkRefused: 'RunLinkRefused',
  /** definitions-sync found a stored report it cannot read as one (its schedule is left as it was). Alarmed. */
  DefinitionInvalid: 'DefinitionInvalid',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * The fan-out's state machine (infra/constructs/report-fan-out.ts) and the export function
 * (shared/fan-out/event.ts) agree on these: `fanOut` in a step's payload names the step it asks
 * for, and a Catch names the part of the fan-out that failed to the failure step (`failed`).
 */
export const FAN_OUT_STEP = { plan: 'plan', work: 'work', assemble: 'assemble', fail: 'fail' } as const;
export const FAN_OUT_PARTS = ['plan', 'workers', 'assemble'] as const;
export type FanOutPart = (typeof FAN_OUT_PARTS)[number];

/**
 * The kinds of ledger keys (`<kind>/<parts…>`): run leases, the runs of each report publishing into
 * its tables, each report's latest run, on-demand job status, run links, failure notices and the
 * reports that outgrew one function (`route`), the attempts of a scheduled run (`attempt`). The stack's IAM conditions name kinds as key prefixes.
 */
export const LEDGER_KINDS = ['run', 'publishing', 'latest', 'job', 'run-link', 'notify', 'message', 'route', 'suppress', 'alert', 'pace', 'attempt'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** The items export-api reads and writes: job status, run links and the unsubscribed (leases and latest are the export's). */
export const API_LEDGER_KINDS = ['job', 'run-link', 'suppress'] as const satisfies readonly LedgerKind[];

/** The leading-key pattern of a kind's items, as an IAM `dynamodb:LeadingKeys` condition matches it. */
export function ledgerKeyPattern(kind: LedgerKind): string {
  return `${kind}/*`;
}


/**
 * The queue of scheduled runs (EventBridge Scheduler → SQS → export-report; infra/constructs/scheduled-runs.ts):
 * the stack's redrive policy moves a message to its dead-letter queue after `maxReceiveCount` receives,
 * and the export function's queue door (shared/job/queue-door.ts) calls a receive at that count the run's
 * last attempt. Three receives: the first try and two retries, as Lambda's asynchronous invocation gave.
 */
export const SCHEDULED_RUNS = { maxReceiveCount: 3 } as const;
