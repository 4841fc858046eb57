import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './names';

/**
 * The one structured logger. Shared logic takes a `Log` (the narrow shape it uses) so tests can pass
 * a recording fake; the doors (Lambda handlers, command line) create the Powertools Logger once and
 * append request keys (run id, report name, request id) to it.
 *
 * Never pass a secret, an API key or an Authorization header in a message or an extra field.
 */
export type Log = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/** Without a level, Powertools takes POWERTOOLS_LOG_LEVEL (set by the stack), else INFO. */
export function createLogger(options: { level?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' } = {}): Logger {
  return new Logger({
    serviceName: SERVICE_NAME,
    ...(options.level !== undefined && { logLevel: options.level }),
  });
}

/** A logger that drops everything (tests and benchmarks that do not look at logs). */
export const silentLog: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
