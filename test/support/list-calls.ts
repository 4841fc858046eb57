import type { RequestLogEntry } from '../../simulator/index';

/**
 * The planning API's list calls: what a run's plan reads (registers, portfolio and strategic themes,
 * a portfolio's themes, collections, boards). Every other operation reads data: risks, theme
 * progress, objective groups, objectives, key results, PI objectives, board items and their metadata.
 */
const LIST_CALL = /\/api\/[^/]+\/(riskregister|portfolio-themes|portfolio-themes\/[^/]+\/strategic-themes|strategic-themes|collections|boards)$/;

/** The requests the simulator saw that were not list calls: what a plan that holds back must not ask. */
export function dataRequests(requests: readonly RequestLogEntry[]): string[] {
  return requests.filter((r) => !LIST_CALL.test(r.path)).map((r) => `${r.method} ${r.path}`);
}

/** The list calls the simulator saw, each as `METHOD path`. */
export function listRequests(requests: readonly RequestLogEntry[]): string[] {
  return requests.filter((r) => LIST_CALL.test(r.path)).map((r) => `${r.method} ${r.path}`);
}
