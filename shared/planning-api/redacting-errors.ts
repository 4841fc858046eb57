import { redactError } from '../core/redaction';

/**
 * Makes every error that leaves `client`'s methods pass through `redact` (message, stack, causes):
 * thrown, rejected, or thrown by an async generator while it is consumed. Error texts are built in
 * many places from what the server sent, also from successful answers (a field that fails its
 * schema is quoted); redacting at the door catches all of them, including ones added later.
 */
export function redactErrorsOf(client: object, redact: (text: string) => string): void {
  const prototype = Object.getPrototypeOf(client) as object;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    if (name === 'constructor' || typeof descriptor?.value !== 'function') continue;
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(client, name, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = method.apply(client, args);
        } catch (error) {
          throw redactError(error, redact);
        }
        return guard(result, redact);
      },
    });
  }
}

function guard(result: unknown, redact: (text: string) => string): unknown {
  if (result instanceof Promise) {
    return result.catch((error: unknown) => {
      throw redactError(error, redact);
    });
  }
  if (isAsyncGenerator(result)) return redactingGenerator(result, redact);
  return result;
}

async function* redactingGenerator<T>(source: AsyncGenerator<T, void, undefined>, redact: (text: string) => string): AsyncGenerator<T, void, undefined> {
  try {
    yield* source;
  } catch (error) {
    throw redactError(error, redact);
  }
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
    && typeof (value as { next?: unknown }).next === 'function';
}
