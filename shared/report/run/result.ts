import type { ReportSummary } from '../../table/table';
import type { ChangeReport } from '../changes/model';
import type { Manifest } from '../manifest/manifest';
import type { Trends } from '../trends/series';
import type { AttentionItem } from '../summary/attention';
import type { OwnWorkFacts } from '../summary/own-work';

/**
 * What a published run is, for whoever comes after it (the deliver and announce stages, the outputs
 * that hand a result on, the doors). Its own module: the outputs name it and the attempt returns it,
 * and neither imports the other.
 */
export interface ExportResult {
  readonly manifest: Manifest;
  readonly manifestKey: string;
  readonly runFolder: string;
  readonly summary: ReportSummary;
  /**
   * The same Summary in each other language the run's readers read (recipients' and channels' own
   * `locale`, definition/readers.ts), by locale. A run read back from its manifest rereads them from
   * `summary.languages`; absent when the run (or an older manifest) has one language only: its
   * readers then read the report's own language.
   */
  readonly summaries?: Readonly<Record<string, ReportSummary>> | undefined;
  /**
   * What each person owns that needs attention (every item of "Needs attention", with its owner), their work (own-work.ts) and
   * the people the run met (id → name), for each reader's own actions (messages/person-actions.ts).
   * Absent for a run read back from its manifest: its readers get the report as every reader does.
   */
  readonly owned?: {
    readonly attention: readonly AttentionItem[];
    readonly people: Readonly<Record<string, string>>;
    /** Each person's risks, the PI objectives behind them and the OKRs behind, for the join per reader (summary/own-work.ts). */
    readonly work?: OwnWorkFacts | undefined;
  } | undefined;
  /** False when a previous attempt of the same run id had already completed: nothing was written. */
  readonly written: boolean;
  /** The ledger's `latest` names this run (it is the newest complete run of the report). */
  readonly latestUpdated: boolean;
  /**
   * Why latest.json could not be brought in line with the ledger (e.g. the store answered 503), or
   * undefined when it was. The run is published either way; the next run, or a rerun of this run
   * id, writes latest.json again.
   */
  readonly latestProblem: string | undefined;
  /** What changed since the baseline run (docs/changes.md). */
  readonly changes: ChangeReport;
  /** The figures of this run and the ones before it (docs/trends.md); absent when the run was not exported again. */
  readonly trends?: Trends | undefined;
}
