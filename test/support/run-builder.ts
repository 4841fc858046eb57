import { join } from 'node:path';
import type { Clock } from '../../shared/core/clock';
import type { Ledger } from '../../shared/ledger/ledger';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { describeSource, type Credentials } from '../../shared/planning-api/credentials';
import type { PlanningSource } from '../../shared/report/dataset/planning-source';
import type { ReportDefinition } from '../../shared/report/definition/definition';
import type { RunPath } from '../../shared/report/manifest/manifest';
import type { RunTrigger } from '../../shared/report/manifest/manifest-changes';
import { runContextOf, type PlanningPorts, type RunContext } from '../../shared/report/run/context';
import { planExport } from '../../shared/report/run/export-plan';
import { planRun } from '../../shared/report/run/plan-run';
import type { ExportResult } from '../../shared/report/run/result';
import type { PlannedRun, RunDraft } from '../../shared/report/run/run';
import { exportRun } from '../../shared/report/run/run-export';
import type { CredentialsSource } from '../../shared/secrets/credential-refresh';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { Storage } from '../../shared/storage/storage';

/** What a run context needs that has no default: the door says what time it is, where files go and who calls the API. */
interface ContextParts {
  readonly clock?: Clock;
  readonly storage?: Storage;
  readonly ledger?: Ledger;
  readonly credentials?: CredentialsSource;
  readonly planning?: Omit<PlanningPorts, 'credentials'>;
  readonly rest?: Partial<RunContext>;
}

/** The run's own facts, as the job's request stage would set them; unset ones take the plan stage's defaults. */
type DraftParts = Partial<Pick<RunDraft, 'runId' | 'trigger' | 'runDate' | 'path'>>;

/** Something that hands out planning API credentials: a running simulator or a test server's. */
interface CredentialsHolder {
  credentials(): Credentials;
}

/**
 * One run of a definition below the job, built as a test reads best and as a door builds it: the real
 * RunContext (runContextOf's defaults: no log, random run ids, the default export settings) and the
 * run's draft (an on-demand run on the single path unless told otherwise). Each `with…` returns a new
 * builder, so a test keeps a base run (`runOf(def).in(root).against(sim)`) and varies one fact per run.
 */
export class RunBuilder {
  private constructor(
    private readonly definition: ReportDefinition,
    private readonly parts: ContextParts,
    private readonly draft: DraftParts,
    private readonly planningSource?: PlanningSource,
  ) {}

  static of(definition: ReportDefinition): RunBuilder {
    return new RunBuilder(definition, {}, {});
  }

  /** Files in `dir` and the ledger beside them in `<dir>/.ledger`, as the local job keeps them. */
  in(dir: string): RunBuilder {
    return this.withStorage(new LocalDirectoryStorage(dir)).withLedger(new LocalLedger(join(dir, '.ledger')));
  }

  /** A storage and the ledger that goes with it (S3 and DynamoDB, or a test's pausing pair). */
  withBackend(backend: { readonly storage: Storage; readonly ledger: Ledger }): RunBuilder {
    return this.withParts({ storage: backend.storage, ledger: backend.ledger });
  }

  withStorage(storage: Storage): RunBuilder {
    return this.withParts({ storage });
  }

  withLedger(ledger: Ledger): RunBuilder {
    return this.withParts({ ledger });
  }

  /** The planning API of a simulator or test server, or fixed credentials: read the same every time. */
  against(holder: CredentialsHolder | Credentials): RunBuilder {
    const read = (): Credentials => (isHolder(holder) ? holder.credentials() : holder);
    return this.withCredentials({ getCredentials: () => Promise.resolve(read()) });
  }

  /** Credentials as a door reads them (a test's source that rotates or refuses). */
  withCredentials(credentials: CredentialsSource): RunBuilder {
    return this.withParts({ credentials });
  }

  /** The run's clock: a fixed instant (a Date or an ISO string) or a clock the test moves. */
  at(when: Clock | Date | string): RunBuilder {
    const clock: Clock = typeof when === 'function' ? when : () => new Date(when);
    return this.withParts({ clock });
  }

  /** The planning API's fetch and request hook (a test's counting or failing transport). */
  withPlanning(planning: Omit<PlanningPorts, 'credentials'>): RunBuilder {
    return this.withParts({ planning: { ...this.parts.planning, ...planning } });
  }

  /** Any other part of the run context: settings, registry, log, lease duration and wait, progress listener, run ids. */
  withContext(rest: Partial<Omit<RunContext, 'clock' | 'storage' | 'ledger' | 'planning'>>): RunBuilder {
    return this.withParts({ rest: { ...this.parts.rest, ...rest } });
  }

  withRunId(runId: string): RunBuilder {
    return this.withDraft({ runId });
  }

  withTrigger(trigger: RunTrigger): RunBuilder {
    return this.withDraft({ trigger });
  }

  withRunDate(runDate: Date): RunBuilder {
    return this.withDraft({ runDate });
  }

  withPath(path: RunPath): RunBuilder {
    return this.withDraft({ path });
  }

  /** The planning API as the run sees it, in place of the client the plan would make (a test's failing or counting source). */
  withSource(source: PlanningSource): RunBuilder {
    return new RunBuilder(this.definition, this.parts, this.draft, source);
  }

  /** The run context a door would build from these parts. */
  context(): RunContext {
    const { clock, storage, ledger, credentials, planning, rest } = this.parts;
    if (!clock || !storage || !ledger || !credentials) {
      throw new Error('a test run needs a clock (at), storage and a ledger (in, or withStorage and withLedger) and credentials (against)');
    }
    return runContextOf({ ...rest, clock, storage, ledger, planning: { ...planning, credentials } });
  }

  /** The job's plan stage alone: nothing fetched but the lists, nothing written. */
  plan(): Promise<PlannedRun> {
    return this.planIn(this.context());
  }

  /** Plans and exports the run, as the job's plan and export stages do. */
  async export(): Promise<ExportResult> {
    const context = this.context();
    return exportRun(await this.planIn(context), context);
  }

  private planIn(context: RunContext): Promise<PlannedRun> {
    const { runId = context.ids.newRunId(context.clock()), trigger = 'on-demand', runDate, path = { via: 'single' } } = this.draft;
    const draft: RunDraft = { definition: this.definition, runId, trigger, runDate, path };
    return this.planningSource ? planWith(this.planningSource, draft, context) : planRun(draft, context);
  }

  private withParts(parts: Partial<ContextParts>): RunBuilder {
    return new RunBuilder(this.definition, { ...this.parts, ...parts }, this.draft, this.planningSource);
  }

  private withDraft(draft: DraftParts): RunBuilder {
    return new RunBuilder(this.definition, this.parts, { ...this.draft, ...draft }, this.planningSource);
  }
}

function isHolder(credentials: CredentialsHolder | Credentials): credentials is CredentialsHolder {
  return typeof (credentials as Partial<CredentialsHolder>).credentials === 'function';
}

/** A run of `definition`, built up with RunBuilder's `in`, `against`, `at` and `with…`. */
export function runOf(definition: ReportDefinition): RunBuilder {
  return RunBuilder.of(definition);
}

/** A planned run over a given source (planRun makes its own client; a test brings one that fails or counts). */
async function planWith(source: PlanningSource, draft: RunDraft, context: RunContext): Promise<PlannedRun> {
  const credentials = await context.planning.credentials.getCredentials();
  const { datasets } = context.registry;
  const plan = await planExport(draft.definition, source, { log: context.log, datasets, companyPrefix: credentials.companyPrefix });
  return { ...draft, plan, client: source, credentials, sourceInfo: describeSource(credentials) };
}
