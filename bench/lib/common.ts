/** Shared bits of the benchmark sections: machine description, figures, formatting, results. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly totalMemoryGb: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when the section started: how busy the machine was. */
  readonly loadAverage: number;
}

export function describeMachine(): Machine {
  let nproc = os.availableParallelism();
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || nproc;
  } catch {
    // nproc is coreutils; availableParallelism is the same figure on Linux
  }
  return {
    nproc,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    totalMemoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function machineLine(m: Machine): string {
  return (
    `${m.nproc} CPUs (\`nproc\`), ${m.cpuModel}, ${m.totalMemoryGb} GiB RAM, Node ${m.node}, ${m.platform}; ` +
    `load average ${m.loadAverage} when the section started`
  );
}

/** One target of the issue, checked against this run's figures. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** undefined: not measured in this run (section skipped or a measurement failed). */
  readonly met: boolean | undefined;
  /** For a missed target: by how much, e.g. "1.9× the limit". */
  readonly gap?: string;
}

/** "1.91× the limit" for a measured value against an upper limit. */
export function over(value: number, limit: number): string {
  return `${(value / limit).toFixed(2)}× the limit`;
}

/** What a section hands back to bench/run.ts. */
export interface SectionResult {
  readonly id: SectionId;
  readonly title: string;
  /** Markdown body: tables and notes (without the heading, command and machine lines). */
  readonly markdown: string;
  readonly targets: readonly TargetCheck[];
  readonly durationMs: number;
}

export type SectionId = 'fetch' | 'render' | 'e2e' | 'cold' | 'parquet' | 'changes' | 'trends' | 'fanout' | 'scale' | 'portfolio' | 'pdf' | 'fleet';
export const SECTION_IDS: readonly SectionId[] = ['fetch', 'render', 'e2e', 'cold', 'parquet', 'changes', 'trends', 'fanout', 'scale', 'portfolio', 'pdf', 'fleet'];
/** Sections left out of a run that does not name them (`--only`): each takes a quarter of an hour or more. */
export const OPT_IN_SECTIONS: readonly SectionId[] = ['portfolio', 'fleet'];

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–');
export const millis = (ms: number): string => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : '–');
export const ratio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
export const mb = (n: number): string => (Number.isFinite(n) ? `${Math.round(n)} MB` : '–');
export const mib = (bytes: number): string => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '–');
export const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const mark = (met: boolean | undefined, gap?: string): string =>
  met === undefined ? 'not measured' : met ? '**met**' : `**missed**${gap ? ` (${gap})` : ''}`;

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Progress on stderr, so stdout keeps only the final tables. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
