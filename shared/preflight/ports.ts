import type { ApiGroupName } from '../planning-api/api-groups';
import type { Credentials } from '../planning-api/credentials';
import type { ReportSchedule, StoredDefinition } from '../definitions/stored-definition';
import type { ScheduledReport } from '../definitions/report-schedule';

/**
 * What `npm run preflight` reads, as ports: each AWS service behind an adapter of this folder (or of
 * the layer that owns the service), the planning API behind the discover probe the command hands in.
 * Every read throws PreflightReadError when the service cannot be asked (no permission, no network).
 */

/** The CDK bootstrap of the account and region: the version in its SSM parameter, undefined when absent. */
export interface BootstrapReader {
  version(): Promise<number | undefined>;
}

export interface DeployedStack {
  /** CloudFormation's StackStatus, e.g. `UPDATE_COMPLETE`. */
  readonly status: string;
  readonly outputs: Readonly<Record<string, string>>;
}

/** CloudFormation stacks by name; undefined when there is no such stack. */
export interface StackReader {
  describe(stackName: string): Promise<DeployedStack | undefined>;
}

/** The text of a secret; undefined when there is no such secret. */
export interface SecretReader {
  read(secretId: string): Promise<string | undefined>;
}

export interface SesIdentityState {
  /** Whether SES lets the account send from it (SESv2 VerifiedForSendingStatus). */
  readonly verified: boolean;
  /** SESv2 VerificationStatus: PENDING, SUCCESS, FAILED, TEMPORARY_FAILURE, NOT_STARTED. */
  readonly status: string;
  readonly type: 'domain' | 'address';
}

export interface SesAccountState {
  /** Out of the sandbox (SESv2 GetAccount ProductionAccessEnabled). */
  readonly productionAccess: boolean;
  /** Whether SES sends for the account at all (paused after a review, for example). */
  readonly sendingEnabled: boolean;
  /** Messages a second the account may send (SendQuota.MaxSendRate), and in 24 hours; undefined when SES gave none. */
  readonly maxSendRate?: number | undefined;
  readonly max24HourSend?: number | undefined;
}

export interface SesAccountReader {
  account(): Promise<SesAccountState>;
  /** An identity (a domain or an address) of this account and region; undefined when there is none. */
  identity(name: string): Promise<SesIdentityState | undefined>;
}

/** The account's Lambda concurrency in this region (Lambda GetAccountSettings). */
export interface LambdaConcurrency {
  /** The account's quota of concurrent executions (AccountLimit.ConcurrentExecutions): 10 on a new account. */
  readonly accountLimit: number;
  /** What no function has reserved (AccountLimit.UnreservedConcurrentExecutions). */
  readonly unreserved: number;
}

export interface LambdaConcurrencyReader {
  account(): Promise<LambdaConcurrency>;
  /** What a function of this account reserves now (GetFunctionConcurrency); undefined when nothing or no such function. */
  reserved(functionName: string): Promise<number | undefined>;
}

/** The stack's schedule group and the schedules in it. */
export interface ScheduleGroupReader {
  groupExists(): Promise<boolean>;
  get(name: string): Promise<ScheduledReport | undefined>;
}

/** The stored reports of the definitions bucket (a DefinitionStore). */
export interface StoredReports {
  names(): Promise<string[]>;
  read(name: string, options?: { fresh?: boolean }): Promise<StoredDefinition | undefined>;
}

/**
 * How one API group answered this key. Which datasets of a report it serves is their entries' to say
 * (`DatasetEntry.apiGroup`, report/tables/registry.ts): preflight asks the registry.
 */
export interface ApiGroupAnswer {
  readonly group: ApiGroupName;
  /** The group's name, e.g. `PI Board Items`. */
  readonly title: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly reason?: string | undefined;
}

/** Asks each API group one question with the credentials (the discover probe). */
export type ApiProbe = (credentials: Credentials) => Promise<{
  readonly groups: readonly ApiGroupAnswer[];
  /** A wrong company prefix or wrong addresses, told from the answers, with what to change. */
  readonly addressHint?: string | undefined;
}>;

export interface PreflightPorts {
  readonly bootstrap: BootstrapReader;
  readonly stacks: StackReader;
  readonly secrets: SecretReader;
  readonly ses: SesAccountReader;
  readonly lambda: LambdaConcurrencyReader;
  readonly probeApi: ApiProbe;
  /** The stack's schedule group, by the name its ScheduleGroupName output gives. */
  readonly schedules: (groupName: string) => ScheduleGroupReader;
  /** The stored reports, in the bucket its DefinitionsBucketName output names. */
  readonly storedReports: (bucket: string) => StoredReports;
}

/** A report as preflight reads it, configured in cdk.json or stored in the definitions bucket. */
export interface KnownReport {
  readonly definition: ReportFields;
  readonly schedule: ReportSchedule | null;
}

interface EmailFields {
  /** Plain addresses, or recipients with their own locale (`{ address, locale?, person? }`). */
  readonly to: readonly (string | { readonly address: string })[];
  readonly cc?: readonly string[] | undefined;
  readonly from?: string | undefined;
  readonly onFailure?: readonly string[] | undefined;
}

/** The fields of a definition (as written or parsed) that decide whether and to whom it e-mails. */
export interface ReportFields {
  readonly name: string;
  readonly datasets: object;
  readonly email?: EmailFields | undefined;
  readonly deliveries?: readonly { readonly email?: EmailFields | undefined }[] | undefined;
}

/** What cdk.json deploys (its `reportExporter` context), as far as a first e-mail depends on it. */
export interface DeploymentSettings {
  readonly mailFrom?: string | undefined;
  readonly sesIdentityArn?: string | undefined;
  readonly planningSecretName?: string | undefined;
  /** The export function's reserved concurrency; undefined: none (the default). */
  readonly exportReservedConcurrency?: number | undefined;
  /** Scheduled runs at once: the scheduled-runs queue's maximum concurrency (cdk.json's scheduledConcurrency). */
  readonly scheduledConcurrency?: number | undefined;
  readonly reports: readonly KnownReport[];
}

export interface PreflightTarget {
  readonly region: string;
  readonly stackName: string;
  /** Read this secret instead of the one the stack's PlanningSecretId output (or planningSecretName) names. */
  readonly secretId?: string | undefined;
  readonly settings: DeploymentSettings;
}
