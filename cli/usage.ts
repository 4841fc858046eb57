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

/**
 * What a command prints for a command line it cannot run: the error and where the options are, on one
 * line. The whole usage is printed only when asked for (--help), so the error is not buried under it.
 */
export function usageErrorLine(command: string, message: string): string {
  return `error: ${message} (npm run ${command} -- --help lists the options)\n`;
}
