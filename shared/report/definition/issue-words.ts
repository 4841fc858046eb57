/**
 * A schema problem in one sentence a person can act on: what was written, the choices there are,
 * and the nearest one when the text looks like a typo ("did you mean"). zod's own words ("Invalid
 * option: expected one of …", "unknown field(s)") name neither what was written nor what is near it.
 */
import type * as z from 'zod';

/** The edit distance of two short words (insertions, deletions, substitutions), case ignored. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= y.length; j += 1) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[y.length]!;
}

/** The choice `given` is most likely a typo of, if one is close enough (a third of its letters, at least 2). */
export function didYouMean(given: string, choices: readonly string[]): string | undefined {
  let best: { choice: string; d: number } | undefined;
  for (const choice of choices) {
    const d = distance(given, choice);
    if (best === undefined || d < best.d) best = { choice, d };
  }
  return best && best.d <= Math.max(2, Math.floor(given.length / 3)) ? best.choice : undefined;
}

/** `a, b or c` */
export function orList(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}` : (words[0] ?? '');
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The object schema at `path` (through optional, default, pipe and array wrappers), or undefined. */
function objectAt(schema: z.ZodType, path: readonly PropertyKey[]): Record<string, z.ZodType> | undefined {
  let current: z.ZodType | undefined = schema;
  const rest = [...path];
  for (let guard = 0; current !== undefined && guard < 100; guard += 1) {
    const def = defOf(current);
    const inner: z.ZodType | undefined = def.innerType ?? def.in ?? def.getter?.();
    if (inner !== undefined) current = inner;
    else if (rest.length === 0) return def.type === 'object' ? def.shape : undefined;
    else if (def.type === 'object') current = def.shape?.[String(rest.shift())];
    else if (def.type === 'array') current = (rest.shift(), def.element);
    else if (def.type === 'record') current = (rest.shift(), def.valueType);
    else return undefined;
  }
  return undefined;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

const quoted = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value));
const near = (given: string, choices: readonly string[]): string => {
  const guess = didYouMean(given, choices);
  return guess === undefined ? '' : ` (did you mean "${guess}"?)`;
};

/**
 * The sentence for one issue of `schema` parsing `input`: a value outside its choices names them
 * and the nearest; an unknown field names the fields there are (up to a dozen) and the nearest.
 */
export function issueWords(issue: z.core.$ZodIssue, input: unknown, schema: z.ZodType): string {
  if (issue.code === 'invalid_value' && issue.values.every((v) => typeof v === 'string')) {
    const choices = issue.values;
    const given = valueAt(input, issue.path);
    return `${quoted(given)} is not one of ${orList(choices)}${typeof given === 'string' ? near(given, choices) : ''}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(objectAt(schema, issue.path) ?? {});
    const each = issue.keys.map((key) => `"${key}"${near(key, known)}`);
    const fields =
      known.length === 1 ? `; the only field here is ${known[0]!}` : known.length > 1 && known.length <= 12 ? `; the fields here are ${orList(known).replace(/ or /, ' and ')}` : '';
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${each.join(', ')}: check the spelling${fields}`;
  }
  return issue.message;
}
