import type {
  Board,
  Collection,
  CompletionType,
  KeyResult,
  OkrObjective,
  OkrObjectiveGroup,
  PiObjectiveGroup,
  PortfolioTheme,
  Risk,
  RiskRegister,
  Sprint,
  Statuses,
  StrategicTheme,
  Team,
  ThemeProgress,
} from '../../planning-api/schemas';
import type { BoardItemsPage } from '../../planning-api/client';

/**
 * What the datasets need from the planning API: the narrow port the report layer depends on.
 * `PlanningApiClient` implements it; tests may pass the client pointed at the simulator.
 * Lists are async iterables so a dataset streams records without holding every page.
 */
export interface PlanningSource {
  /** Requests it lets be in flight at once: how many board page chains are worth running together. */
  readonly concurrency?: number;
  listRiskRegisters(): AsyncIterable<RiskRegister>;
  listRisks(registerIdOrKey: string): AsyncIterable<Risk>;

  listPortfolioThemes(): AsyncIterable<PortfolioTheme>;
  listPortfolioStrategicThemes(portfolioKeyOrId: string): AsyncIterable<StrategicTheme>;
  listStrategicThemes(): AsyncIterable<StrategicTheme>;
  getStrategicTheme(keyOrId: string): Promise<StrategicTheme>;
  getThemeProgress(themeKeyOrId: string): Promise<ThemeProgress>;
  listObjectiveGroups(themeKeyOrId: string): AsyncIterable<OkrObjectiveGroup>;
  listObjectives(groupId: string): AsyncIterable<OkrObjective>;
  listKeyResults(objectiveKeyOrId: string): AsyncIterable<KeyResult>;

  listCollections(): Promise<Collection[]>;
  listBoards(options?: { collectionIds?: readonly string[] }): Promise<Board[]>;
  listPiObjectiveGroups(
    boardId: string,
    options?: { completionType?: CompletionType | undefined; additionalColumns?: boolean },
  ): Promise<PiObjectiveGroup[]>;

  /** A board's features an answer at a time, in order, each page with its answer's size in bytes. */
  listBoardItemPages(boardId: string, options?: { fields?: readonly string[] }): AsyncIterable<BoardItemsPage>;
  listSprints(boardId: string): Promise<Sprint[]>;
  listTeams(boardId: string): Promise<Team[]>;
  getStatuses(boardId: string): Promise<Statuses>;
}
