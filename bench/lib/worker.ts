/**
 * The worker's side of bench/lib/child.ts: its input and its one result line. Apart from child.ts
 * because every worker is bundled with what it imports: child.ts builds the bundles and copies the
 * PDF's fonts beside them (infra's PDF_FONTS, which brings aws-cdk-lib, ~60 MB of JavaScript, into any
 * bundle that imports it), so a worker importing child.ts would carry and parse all of CDK.
 */

/** The prefix of the one stdout line that carries a worker's JSON result. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

/** For workers: prints the result line (with the process's own peak RSS) and exits. */
export function reportResult(result: object): never {
  const maxRssKb = process.resourceUsage().maxRSS;
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ...result, maxRssKb })}\n`, () => process.exit(0));
  // process.exit in the callback; never returns to the caller's code in the meantime.
  return undefined as never;
}

/** The JSON input a worker was started with. */
export function workerInput<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('worker started without its JSON input argument');
  return JSON.parse(raw) as T;
}
