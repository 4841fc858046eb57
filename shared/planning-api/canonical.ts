import type { z } from 'zod';

/**
 * The validation fast path. zod builds a new object for every object it parses, so validating a
 * board of features copied every feature once more: half the client's CPU went to zod and the
 * garbage it left (measured in docs/benchmarks.md, section 1). Most records already are exactly what
 * their schema outputs: ids are strings, numbers are numbers. For those, a check compiled from the
 * schema itself says so without allocating, and the record is used as it came; any other record
 * (a number for an id, a numeric string, a wrong type) goes through zod, which normalises it or
 * names the bad field. So the zod schema stays the one definition of a record.
 *
 * A check answers true only when zod would accept the value AND hand it back unchanged. Schema parts
 * it cannot prove that for (records, regex strings, transforms other than the ones registered)
 * compile to no check, and their records always go through zod.
 */
export type CanonicalCheck = (value: unknown) => boolean;

/** JS kinds a schema part may accept: a union compiles only when its options take disjoint kinds. */
type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null' | 'undefined';
const ALL_KINDS: readonly Kind[] = ['string', 'number', 'boolean', 'object', 'array', 'null', 'undefined'];

interface Compiled {
  readonly kinds: ReadonlySet<Kind>;
  /** Undefined: the part may change what it accepts (a transform), so nothing under it is canonical. */
  readonly check: CanonicalCheck | undefined;
}

const registered = new WeakMap<z.ZodType, Compiled>();
const compiledChecks = new WeakMap<z.ZodType, CanonicalCheck | null>();

/**
 * Declares what `schema` hands back unchanged, for a part the compiler cannot see through (a
 * transform that is the identity on some inputs). `kinds`: every JS kind the schema accepts.
 */
export function declareCanonical<T extends z.ZodType>(schema: T, kinds: readonly Kind[], check: CanonicalCheck): T {
  registered.set(schema, { kinds: new Set(kinds), check });
  return schema;
}

/** The schema's canonical check, compiled once; undefined when the schema has parts it cannot prove. */
export function canonicalCheckOf(schema: z.ZodType): CanonicalCheck | undefined {
  let check = compiledChecks.get(schema);
  if (check === undefined) {
    check = compile(schema)?.check ?? null;
    compiledChecks.set(schema, check);
  }
  return check ?? undefined;
}

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined' ? type : 'object';
}

interface Def {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const unchecked = (def: Def): boolean => (def.checks ?? []).length === 0;

/** What `schema` accepts, and its canonical check; undefined when it cannot be compiled at all. */
function compile(schema: z.ZodType): Compiled | undefined {
  const declared = registered.get(schema);
  if (declared) return declared;
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return unchecked(def) ? leaf(def.type) : undefined;
    case 'unknown':
    case 'any':
      return { kinds: new Set(ALL_KINDS), check: () => true };
    case 'optional':
    case 'nullable':
      return wrapper(def);
    case 'array':
      return unchecked(def) ? array(def.element!) : undefined;
    case 'object':
      return object(def);
    case 'union':
      return union(def.options ?? []);
    case 'pipe': {
      // A transform: accepts what its input accepts, hands back something else.
      const input = compile(def.in!);
      return input && { kinds: input.kinds, check: undefined };
    }
    default:
      return undefined;
  }
}

function leaf(type: 'string' | 'number' | 'boolean'): Compiled {
  // zod's number refuses NaN and the infinities (JSON has neither, but a check must not say more than zod).
  const check: CanonicalCheck = type === 'number' ? (v) => typeof v === 'number' && Number.isFinite(v) : (v) => typeof v === type;
  return { kinds: new Set([type]), check };
}

function wrapper(def: Def): Compiled | undefined {
  const inner = compile(def.innerType!);
  if (!inner) return undefined;
  const empty = def.type === 'optional' ? undefined : null;
  const innerCheck = inner.check;
  return {
    kinds: new Set([...inner.kinds, def.type === 'optional' ? 'undefined' : 'null']),
    check: innerCheck && ((v) => v === empty || innerCheck(v)),
  };
}

function array(element: z.ZodType): Compiled | undefined {
  const item = compile(element);
  if (!item) return undefined;
  const check = item.check;
  return {
    kinds: new Set(['array']),
    check: check && ((v) => {
      if (!Array.isArray(v)) return false;
      for (const entry of v) if (!check(entry)) return false;
      return true;
    }),
  };
}

function object(def: Def): Compiled | undefined {
  // Only loose objects: a strict or stripping one hands back other keys than it was given.
  if (!def.catchall || defOf(def.catchall).type !== 'unknown') return undefined;
  const fields: [string, CanonicalCheck][] = [];
  for (const [key, part] of Object.entries(def.shape ?? {})) {
    const check = compile(part)?.check;
    if (!check) return undefined;
    fields.push([key, check]);
  }
  const check: CanonicalCheck = (v) => {
    if (kindOf(v) !== 'object') return false;
    const record = v as Record<string, unknown>;
    for (const [key, field] of fields) if (!field(record[key])) return false;
    return true;
  };
  return { kinds: new Set(['object']), check };
}

/**
 * zod hands back the first option that accepts a value. With options of disjoint kinds, the value's
 * kind names that option, so the union is canonical where that option is.
 */
function union(options: readonly z.ZodType[]): Compiled | undefined {
  const byKind = new Map<Kind, CanonicalCheck | undefined>();
  for (const option of options) {
    const compiled = compile(option);
    if (!compiled) return undefined;
    for (const kind of compiled.kinds) {
      if (byKind.has(kind)) return undefined;
      byKind.set(kind, compiled.check);
    }
  }
  return {
    kinds: new Set(byKind.keys()),
    check: (v) => byKind.get(kindOf(v))?.(v) ?? false,
  };
}
