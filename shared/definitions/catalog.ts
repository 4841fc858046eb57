import { ReportDefinitionError } from '../core/errors';
import { runNameCollision, storedOwnersOf } from '../report/definition/slices';

/**
 * The configured reports, read one at a time by name: the stack's definitions bucket through a
 * short cache (DefinitionStore), or a fixed set (catalogOf) for the local commands and tests.
 */
export interface DefinitionCatalog {
  /** The report's definition as written, or undefined when no report has that name. */
  get(name: string): Promise<unknown>;
}

/** A catalog of a fixed set of definitions by name. */
export function catalogOf(definitions: Readonly<Record<string, unknown>>): DefinitionCatalog {
  return { get: (name) => Promise.resolve(Object.hasOwn(definitions, name) ? definitions[name] : undefined) };
}

/**
 * A configured report by name (as written): a stored report, or one delivery of one, named
 * `<report>--<delivery>` (its slice, report/definition/slices.ts), so a slice's run links and on-demand
 * exports work like a report's. A name two of them claim (the report `port--b` and the delivery `b`
 * of `port`) runs neither: their runs would write the same folder and latest.json. Validation
 * refuses such a pair; this catches one stored past it (a plain upload, two pushes).
 */
export async function lookupReport(catalog: DefinitionCatalog, name: string): Promise<unknown> {
  const [first, second] = await storedOwnersOf(name, (report) => catalog.get(report));
  if (first && second) {
    const message = runNameCollision(first, second);
    throw new ReportDefinitionError(`"${name}" cannot run: ${message}`, [{ path: 'report', message }]);
  }
  return first?.definition;
}
