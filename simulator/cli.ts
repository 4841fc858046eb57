/**
 * Runs the simulator until Ctrl-C:
 *   npx tsx simulator/cli.ts --port 8080 --legacy-port 8081 --tenant demo [--latency 50] [--seed 1] [--prefix acme] [--host 127.0.0.1] [--vocabulary contract|docs]
 * Prints the addresses and every user's credentials document as JSON.
 */
import { parseArgs } from 'node:util';
import { PRESETS } from './presets';
import { startSimulator } from './server';
import type { TenantPreset } from './types';
import { setDefaultVocabulary } from './vocabulary';

function toNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got '${value}'`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'legacy-port': { type: 'string' },
      tenant: { type: 'string' },
      latency: { type: 'string' },
      seed: { type: 'string' },
      prefix: { type: 'string' },
      flavour: { type: 'string' },
      vocabulary: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: tsx simulator/cli.ts [--port 8080] [--legacy-port 8081] [--tenant tiny|demo|large|portfolio|portfolio-2m] [--latency ms] [--seed n] [--prefix acme] [--host 127.0.0.1] [--flavour demo|test] [--vocabulary contract|docs]\n',
    );
    return;
  }
  const tenant = (values.tenant ?? 'demo') as TenantPreset;
  if (!(tenant in PRESETS)) throw new Error(`--tenant must be one of ${Object.keys(PRESETS).join(', ')}`);
  const flavour = values.flavour ?? 'demo';
  if (flavour !== 'demo' && flavour !== 'test') throw new Error('--flavour must be demo (a realistic release train) or test (with the traps)');
  const vocabulary = values.vocabulary ?? setDefaultVocabulary(process.env.SIMULATOR_VOCABULARY);
  if (vocabulary !== 'contract' && vocabulary !== 'docs') {
    throw new Error("--vocabulary must be contract (the API contract's field names) or docs (the names of the service's public documentation)");
  }
  const sim = await startSimulator({
    vocabulary,
    host: values.host,
    port: toNumber('port', values.port),
    legacyPort: toNumber('legacy-port', values['legacy-port']),
    tenant,
    latencyMs: toNumber('latency', values.latency),
    seed: toNumber('seed', values.seed),
    companyPrefix: values.prefix,
    flavour,
  });
  const summary = {
    v1BaseUrl: sim.v1BaseUrl,
    legacyBaseUrl: sim.legacyBaseUrl,
    companyPrefix: sim.companyPrefix,
    tenant,
    vocabulary: sim.vocabulary,
    users: sim.users.map((u) => ({ role: u.role, displayName: u.displayName, credentials: sim.credentials(u.email) })),
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\nSimulator running; press Ctrl-C to stop.\n`);
  // Keep the request log from growing without bound in a long-running process.
  const trim = setInterval(() => {
    if (sim.requests.length > 10_000) sim.requests.splice(0, sim.requests.length - 10_000);
  }, 10_000);
  const stop = (): void => {
    clearInterval(trim);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
