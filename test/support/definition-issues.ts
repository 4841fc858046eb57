import { ReportDefinitionError } from '../../shared/core/errors';

/**
 * The issues of the ReportDefinitionError that `run` throws, for tests that check what a refused
 * definition is told; fails the test when `run` throws nothing, or an error of another kind.
 */
export function definitionIssues(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ReportDefinitionError) return [...error.issues];
    throw error;
  }
  throw new Error('expected the definition to be refused with a ReportDefinitionError');
}
