/**
 * What `--report` names, for the commands that take one (export, link): a report definition file, or
 * a report by its name. export took only a file and link only a name, so a person who used one the
 * way the other wants got an error about the wrong thing; now both take either, and when neither
 * fits one error names both choices, what each holds, and the nearest ("did you mean").
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ExporterError } from '../shared/core/errors';
import { didYouMean } from '../shared/report/definition/issue-words';

/** A place reports are known by name: cdk.json's configured reports, a definitions bucket. */
export interface ReportPlace {
  /** How the place is named in the error: `cdk.json`, `the definitions bucket "b"`. */
  readonly where: string;
  /** The names it holds, or a sentence saying why they are not known (the bucket is not known here). */
  readonly names: readonly string[] | string;
}

/** Whether `given` (relative to `cwd`) is something on disk: then it is read as a file, and reading it says what is wrong with it. */
export async function isReportFile(given: string, cwd: string): Promise<boolean> {
  return stat(resolve(cwd, given)).then(
    () => true,
    () => false,
  );
}

/**
 * The error for a `--report` that is neither a file nor a report's name in any of `places`: each
 * place with what it holds, the nearest name or file beside the given path, and what to give.
 */
export async function unknownReportError(given: string, cwd: string, places: readonly ReportPlace[], what: string): Promise<ExporterError> {
  const listed = (list: readonly string[]) => list.join(', ') || 'none';
  const held = places.map((p) => (typeof p.names === 'string' ? p.names : `${p.where} (${p.where === 'cdk.json' ? 'configured' : 'stored'}: ${listed(p.names)})`));
  const names = places.flatMap((p) => (typeof p.names === 'string' ? [] : p.names));
  const guess = didYouMean(given, [...names, ...(await definitionFilesBeside(given, cwd))]);
  return new ExporterError(
    // The file's whole path: a command run from another folder than the one meant shows where it looked.
    `"${given}" was not found: no file ${resolve(cwd, given)} and no report of that name in ${held.join(' or in ')}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; --report takes ${what}`,
  );
}

/** JSON files in the folder `given` points into, as paths like `given` (for "did you mean"). */
async function definitionFilesBeside(given: string, cwd: string): Promise<string[]> {
  const folder = dirname(given);
  const files = await readdir(resolve(cwd, folder)).catch(() => [] as string[]);
  return files.filter((f) => f.endsWith('.json')).map((f) => (folder === '.' && !given.startsWith('./') ? f : `${folder}/${basename(f)}`));
}

/** The definitions cdk.json configures, as written there (the same loader `cdk synth` uses); none when there is no cdk.json here. */
export async function configuredReports(cwd: string): Promise<readonly { readonly name: string }[]> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, 'cdk.json'), 'utf8');
  } catch {
    return [];
  }
  const { CONTEXT_KEY, loadInfraConfig } = await import('../infra/config');
  const cdkJson = JSON.parse(text) as { context?: Record<string, unknown> };
  return loadInfraConfig(cdkJson.context?.[CONTEXT_KEY], cwd).reports.map((r) => r.definition);
}
