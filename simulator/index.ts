/**
 * HTTP simulator of the Work-Planning Reporting API, as the vendor documents it, for tests,
 * `npm run demo` and benchmarks. See docs/simulator.md.
 */
export { startSimulator, type RunningSimulator } from './server';
export type {
  ApiGroup,
  GroupRefusal,
  FaultOptions,
  InjectedFault,
  RequestLogEntry,
  SimAddress,
  SimCredentials,
  SimulatorOptions,
  SimUser,
  TenantPreset,
  TenantShape,
} from './types';
export type { Tenant, TenantView } from './tenant';
export type { BoardItemChange, NewRisk, OkrChange, PiObjectiveChange, RiskChange, TenantAdvance } from './evolution';
export type { SimBoard, TrackerFamily, BoardMeta } from './boards';
export type { CompletionTypeValue } from './pi-objectives';
export { resolveCompletionType } from './pi-objectives';
export { PRESETS, resolveShape } from './presets';
export { MINIMAL_FIELDS, V1_PAGE_LIMIT } from './projection';
export { boardItemRowCount, DEFAULT_ITEM_FIELDS } from './board-items';
export { ITEMS_PAGE_SIZE } from './routes-legacy';
export type * from './records';
export type { Vocabulary } from './vocabulary';
export {
  defaultVocabulary,
  setDefaultVocabulary,
  docsBoardItem,
  docsOkrObjective,
  docsOkrObjectiveGroup,
  docsPiObjectiveGroup,
  docsStrategicTheme,
  DOCS_DEFAULT_ITEM_FIELDS,
  DOCS_TRACKER_NAMES,
  itemDateToEpochMs,
  projectDocsBoardItem,
  teamsAndSprintsText,
  VOCABULARIES,
} from './vocabulary';
