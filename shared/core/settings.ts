import type * as z from 'zod';
import { ConfigError } from './errors';

/**
 * Parses a settings object with its schema (defaults filled in, every value checked), once, where a
 * door or a maker learns them. A ConfigError names the first bad setting, e.g. "export setting
 * timeoutMs is invalid: Too small: expected number to be >0".
 */
export function parseSettings<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ConfigError(`${what} ${issue?.path.join('.') ?? ''} is invalid: ${issue?.message ?? 'invalid'}`, { cause: parsed.error });
}
