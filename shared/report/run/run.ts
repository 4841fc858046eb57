import type { Credentials } from '../../planning-api/credentials';
import type { RunTrigger } from '../manifest/manifest-changes';
import type { ReportDefinition } from '../definition/definition';
import type { Manifest, RunPath } from '../manifest/manifest';
import type { ExportPlan } from './export-plan';
import type { PlanningSource } from '../dataset/planning-source';
import type { RunWriter } from './run-writer';

/**
 * The run as it travels the line (docs/architecture.md, "The run line"): drafted by the job's resolve
 * stage, grown by its plan (plan-run.ts) into the one value the export, the attempt and the outputs
 * read. Its own module, as the result's (result.ts): the outputs name the run, and importing the
 * plan stage from them would close a loop through the registry.
 */

/** A run as the job resolved it, before anything is asked of the planning API. */
export interface RunDraft {
  readonly definition: ReportDefinition;
  readonly runId: string;
  /** Scheduled runs are compared with scheduled runs, on-demand ones with on-demand ones (docs/changes.md). */
  readonly trigger: RunTrigger;
  /** The `dt=` date of a scheduled run (its schedule's time); undefined: the run's first attempt. */
  readonly runDate: Date | undefined;
  /** Which path writes the run, and why (the manifest's `path`). */
  readonly path: RunPath;
}

/**
 * A run ready to export: the draft with its plan (every selector resolved with the list calls alone)
 * and the one planning client the run asks through, which the plan's lists already warmed.
 */
export interface PlannedRun extends RunDraft {
  readonly plan: ExportPlan;
  readonly client: PlanningSource;
  /** The credentials the client holds: a refusal is retried only with others (a rotated key). */
  readonly credentials: Credentials;
  /** Where the data came from, for the manifest: never the API key. */
  readonly sourceInfo: Manifest['source'];
}

/**
 * What the attempt of a run (run-attempt.ts) hands to the writing of it, under its lease: where the
 * run is written and the dates the attempt settled. The run's own facts stay on the run.
 */
export interface RunInProgress {
  readonly writer: RunWriter;
  readonly runFolder: string;
  /** Start of the run's first attempt: every retry keeps its `dt=` folder and its `generatedAt`. */
  readonly runStart: Date;
  /** The `dt=` partition's date: the run's own (its schedule's), or else its first attempt's start. */
  readonly runDate: Date;
}
