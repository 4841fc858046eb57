/**
 * Benchmark suite (not a test): `npm run bench [-- flags]`. Prints its tables and writes
 * docs/benchmarks.md. Every heavy measurement runs in a fresh child process. See --help.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, machineLine, mark, OPT_IN_SECTIONS, progress, SECTION_IDS, table, type SectionId, type SectionResult } from './lib/common';
import { updateDoc, type SectionBlock } from './lib/doc';
import { runChangesSection } from './sections/changes';
import { runScaleSection } from './sections/scale';
import { runTrendsSection } from './sections/trends';
import { runFanOutSection, runPortfolioSection } from './sections/fan-out';
import { PRESETS, type TenantPreset } from '../simulator/index';
import { runColdStartSection } from './sections/cold-start';
import { runE2eSection } from './sections/e2e';
import { runFetchSection } from './sections/fetch';
import { runParquetSection } from './sections/parquet';
import { DEFAULT_SIZES, runRenderSection } from './sections/render';
import { runPdfTextSection } from './sections/pdf-text';
import { DEFAULT_FLEET, runFleetSection } from './sections/fleet';

const HELP = `npm run bench [-- options]

  --only <list>     sections to run, comma-separated: ${SECTION_IDS.join(', ')} (default: all but ${OPT_IN_SECTIONS.join(', ')})
  --sizes <list>    row counts of the render section (default: ${DEFAULT_SIZES.join(',')})
  --repeat <n>      runs of each quick measurement; the median is shown (default: 3)
  --no-write        print only; leave docs/benchmarks.md alone
  --write           write docs/benchmarks.md even with non-default --sizes (which otherwise only print,
                    so a quick run does not replace the full render figures)
  --out <path>      where to write (default: docs/benchmarks.md)
  --fan-out-items <n>  features per board of the fan-out section's 16 boards (default 2500)
  --scale-rows <list>  row counts of the memory-in-rows section (default: 300000,2000000)
  --fleet-reports <n>  reports of the fleet section, all at one instant (default 500)
  --fleet-caps <list>  the concurrency caps it runs under (default: 10,100)
  --fleet-engine <e>   queue (the stack's scheduled-runs queue, default) or async (Lambda's asynchronous invocation)
  --tenants <list>  simulator presets of the portfolio section (default: portfolio,portfolio-2m; ~15 min on 2 cores)
  --help

Examples:
  npm run bench                                          # everything (4-8 min on 2 cores)
  npm run bench -- --only render --sizes 10000,100000    # a quick subset (printed, not written)
  npm run bench -- --only fetch,cold --repeat 1          # updates only those two sections
  npm run bench -- --only pdf                            # the PDF with long text (~1 min on 2 cores)
  npm run bench -- --only portfolio --repeat 1 --tenants portfolio   # 937,500 rows on both paths (~4 min)`;

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv,
  options: {
    only: { type: 'string' },
    sizes: { type: 'string' },
    repeat: { type: 'string' },
    'no-write': { type: 'boolean' },
    write: { type: 'boolean' },
    out: { type: 'string' },
    'fan-out-items': { type: 'string' },
    'scale-rows': { type: 'string' },
    tenants: { type: 'string' },
    'fleet-reports': { type: 'string' },
    'fleet-caps': { type: 'string' },
    'fleet-engine': { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const only = values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : SECTION_IDS.filter((id) => !OPT_IN_SECTIONS.includes(id));
const unknown = only.filter((s) => !SECTION_IDS.includes(s as SectionId));
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${SECTION_IDS.join(', ')}`);
  process.exit(2);
}
const sizes = values.sizes ? values.sizes.split(',').map((s) => Number(s.replace(/[_,]/g, ''))) : [...DEFAULT_SIZES];
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error(`--sizes must be positive integers, got ${values.sizes ?? ''}`);
  process.exit(2);
}
const repeat = values.repeat ? Number(values.repeat) : 3;
if (!Number.isInteger(repeat) || repeat < 1) {
  console.error(`--repeat must be a positive integer, got ${values.repeat ?? ''}`);
  process.exit(2);
}
const tenants = values.tenants?.split(',').map((s) => s.trim()).filter(Boolean);
const unknownTenants = (tenants ?? []).filter((t) => !(t in PRESETS));
if (unknownTenants.length > 0) {
  console.error(`unknown tenant preset(s): ${unknownTenants.join(', ')}; choose from ${Object.keys(PRESETS).join(', ')}`);
  process.exit(2);
}
const out = values.out ?? fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;

const runners: Record<SectionId, () => Promise<SectionResult>> = {
  fetch: () => runFetchSection({ repeat }),
  render: () => runRenderSection({ sizes, repeat }),
  parquet: () => runParquetSection(),
  e2e: () => runE2eSection(),
  cold: () => runColdStartSection({ repeat: Math.max(5, repeat) }),
  changes: () => runChangesSection({ repeat }),
  trends: () => runTrendsSection({ repeat }),
  // One run of each by default (five minutes); --repeat asks for medians.
  scale: () => runScaleSection({ repeat: values.repeat ? repeat : 1, ...(values['scale-rows'] && { rows: values['scale-rows'].split(',').map((s) => Number(s.replace(/[_,]/g, ''))) }) }),
  portfolio: () => runPortfolioSection({ repeat: Math.min(repeat, 2), ...(tenants && { tenants: tenants as TenantPreset[] }) }),
  fanout: () => runFanOutSection({ repeat: Math.min(repeat, 2), ...(values['fan-out-items'] && { itemsPerBoard: Number(values['fan-out-items']) }) }),
  pdf: () => runPdfTextSection({ repeat }),
  fleet: () =>
    runFleetSection({
      ...DEFAULT_FLEET,
      ...(values['fleet-reports'] && { reports: Number(values['fleet-reports']) }),
      ...(values['fleet-caps'] && { caps: values['fleet-caps'].split(',').map(Number) }),
      ...(values['fleet-engine'] && { engine: values['fleet-engine'] === 'async' ? 'async' : 'queue' }),
    }),
};

const started = performance.now();
const blocks: SectionBlock[] = [];
let failed = false;
for (const id of SECTION_IDS) {
  if (!only.includes(id)) continue;
  const machine = machineLine(describeMachine());
  const when = new Date();
  progress(`section ${id}`);
  try {
    const result = await runners[id]();
    const block: SectionBlock = { ...result, command, machine, when };
    blocks.push(block);
    console.log(`\n## ${result.title}\n\nMachine: ${machine}\n\n${result.markdown}\n`);
    console.log(table(['target', 'measured', 'result'], result.targets.map((t) => [t.target, t.measured, mark(t.met, t.gap)])));
  } catch (error) {
    failed = true;
    console.error(`section ${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
const totalMs = performance.now() - started;
console.log(`\nbench: ${blocks.length} section(s) in ${(totalMs / 60_000).toFixed(1)} min (${command})`);
const defaultSizes = [...sizes].sort((x, y) => x - y).join(',') === [...DEFAULT_SIZES].join(',');
const partialRender = !defaultSizes && only.includes('render') && !values.write;
if (values['no-write'] || blocks.length === 0) {
  // nothing to write
} else if (partialRender) {
  console.log('bench: not written: --sizes differs from the default (pass --write to write anyway)');
} else {
  updateDoc(out, blocks);
  console.log(`bench: wrote ${out}`);
}
process.exit(failed ? 1 : 0);
