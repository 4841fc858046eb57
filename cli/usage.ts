import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage, ExporterError } from '../shared/core/errors';

/** A command line the command cannot run: the commands print it with their usage and exit 2. */
export class UsageError extends ExporterError {
  static override readonly kind: string = 'usage';
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; strict: true; options: T }>>['values'];

/**
 * The options of a command, parsed strictly (an unknown option or a missing value is refused).
 * parseArgs's own error names the option; it becomes a UsageError so every command answers it alike.
 */
export function parseOptions<const T extends Options>(
  argv: readonly string[],
  options: T,
): Parsed<T> {
  try {
    return parseArgs<{ args: string[]; strict: true; options: T }>({ args: [...argv], strict: true, options }).values;
  } catch (error) {
    throw new UsageError(errorMessage(error), { cause: error });
  }
}
