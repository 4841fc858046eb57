/**
 * 12. The PDF with long text: one text in every place of the report's PDF (bench/workers/pdf-text.ts),
 * 1,000 to 100,000 characters with no space against the same length in words, and the other texts
 * that once stalled the renderer (a run of spaces, letters under stacked accents). Each time and peak
 * RSS is a ratio to the text with spaces of the same length, measured in the same run.
 */
import { runWorker } from '../lib/child';
import { int, mb, median, over, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import type { PdfTextKind, PdfTextResult } from '../workers/pdf-text';

export const PDF_TEXT_LENGTHS: readonly number[] = [1_000, 10_000, 100_000];
/** 2,000 letters under 8 combining marks each. */
const ACCENTS_LENGTH = 18_000;
const HEAP_MB = 1_024;
/** A render that stalls (as one did before the fix: minutes) fails its row instead of the bench. */
const TIMEOUT_MS = 120_000;
/**
 * The targets: within this ratio of the spaced text's time, and under this peak RSS. Linear time
 * with room for this machine's noise (1.4–2.0× measured); before the fix, 10,000 characters took
 * more than 37× the spaced text and 100,000 did not finish.
 */
const TIME_RATIO_LIMIT = 3;
const PEAK_LIMIT_MB = 300;

interface Case {
  readonly kind: PdfTextKind;
  readonly length: number;
  /** The text it is compared with. */
  readonly reference: PdfTextKind;
  readonly label: string;
}

interface Measured {
  readonly wall: number[];
  readonly cpu: number[];
  peak: number;
  bytes: number;
  failed?: string;
}

function cases(): Case[] {
  const words = PDF_TEXT_LENGTHS.flatMap((length): Case[] => [
    { kind: 'spaced', length, reference: 'spaced', label: 'words of 9 letters and a space' },
    { kind: 'unbroken', length, reference: 'spaced', label: 'one word (no space)' },
  ]);
  return [
    ...words,
    { kind: 'spaces', length: 100_000, reference: 'spaced', label: 'spaces, then a dot' },
    { kind: 'lines', length: 100_000, reference: 'spaced', label: 'a 4-letter word a line (20,000 line breaks)' },
    { kind: 'accents-spaced', length: ACCENTS_LENGTH, reference: 'accents-spaced', label: 'letters under 8 accents, a space after every 9' },
    { kind: 'accents', length: ACCENTS_LENGTH, reference: 'accents-spaced', label: '2,000 letters under 8 accents each (no space)' },
  ];
}

const keyOf = (kind: PdfTextKind, length: number) => `${kind} ${length}`;

async function measureAll(all: readonly Case[], repeat: number): Promise<Map<string, Measured>> {
  const measured = new Map<string, Measured>(all.map((c) => [keyOf(c.kind, c.length), { wall: [], cpu: [], peak: 0, bytes: 0 }]));
  // Round by round over every case, each round in the other order, so a burst of load hits all alike.
  for (let i = 0; i < repeat; i++) {
    for (const c of i % 2 === 0 ? all : [...all].reverse()) {
      const m = measured.get(keyOf(c.kind, c.length))!;
      if (m.failed) continue;
      progress(`pdf: ${c.kind} ${int(c.length)} characters (${i + 1}/${repeat})`);
      const outcome = await runWorker<PdfTextResult>('workers/pdf-text.ts', { kind: c.kind, length: c.length }, { maxOldSpaceMb: HEAP_MB, timeoutMs: TIMEOUT_MS });
      m.peak = Math.max(m.peak, outcome.peakRssMb);
      if (!outcome.result) {
        m.failed = outcome.signal === 'SIGKILL' ? `not done after ${seconds(TIMEOUT_MS)}` : `failed (exit ${String(outcome.exitCode)})`;
        // The row says that it failed; the worker's stderr says why (a missing font, a crash, out of memory).
        if (outcome.signal !== 'SIGKILL') console.error(`pdf: ${c.kind} ${int(c.length)} ${m.failed}:\n${outcome.stderrTail}`);
        continue;
      }
      m.wall.push(outcome.result.wallMs);
      m.cpu.push(outcome.result.cpuMs);
      m.bytes = outcome.result.bytes;
    }
  }
  return measured;
}

export async function runPdfTextSection(options: { repeat: number }): Promise<SectionResult> {
  const started = performance.now();
  const all = cases();
  const measured = await measureAll(all, options.repeat);
  // Without its reference no ratio means anything: fail the section (and the bench's exit code) rather
  // than write a table of dashes, as it did while the worker bundle could not find the fonts.
  const lostReference = all.find((c) => c.kind === c.reference && measured.get(keyOf(c.kind, c.length))!.failed);
  if (lostReference) throw new Error(`the reference render (${lostReference.kind}, ${int(lostReference.length)} characters) ${measured.get(keyOf(lostReference.kind, lostReference.length))!.failed}`);
  const rows: string[][] = [];
  const checked: { label: string; timeRatio: number; cpuRatio: number; peak: number }[] = [];
  for (const c of all) {
    const m = measured.get(keyOf(c.kind, c.length))!;
    const ref = measured.get(keyOf(c.reference, c.length))!;
    const timeRatio = median(m.wall) / median(ref.wall);
    const cpuRatio = median(m.cpu) / median(ref.cpu);
    const wall = m.failed ?? `${seconds(median(m.wall))}`;
    const cpu = m.failed ? '–' : seconds(median(m.cpu));
    rows.push([c.label, int(c.length), wall, ratio(timeRatio), cpu, ratio(cpuRatio), mb(m.peak), ratio(m.peak / ref.peak), m.failed ? '–' : `${int(m.bytes / 1024)} kB`]);
    if (c.kind !== c.reference) checked.push({ label: `${c.kind} ${int(c.length)}`, timeRatio: m.failed ? Number.POSITIVE_INFINITY : timeRatio, cpuRatio, peak: m.peak });
  }
  const worstTime = checked.reduce((a, b) => (b.timeRatio > a.timeRatio ? b : a));
  const worstPeak = checked.reduce((a, b) => (b.peak > a.peak ? b : a));
  const markdown = [
    'One text in every place of the report\'s PDF that has text (title and page header, section heading, a Summary line\'s label, value and delta, ' +
      'a table cell and header, the Trends heading, sentence, block title, column and run name: bench/workers/pdf-text.ts, as ' +
      'test/shared/render/pdf/wrap-text.test.ts renders it) through `renderReportPdf`. Fresh process per render (an esbuild bundle on plain node, ' +
      `\`--max-old-space-size=${HEAP_MB}\`, killed after ${seconds(TIMEOUT_MS)}), the cases in alternating order round by round; median of ${options.repeat}, ` +
      'peak RSS the largest of the runs. "÷ spaced" is each figure over that of the text with spaces of the same length in this run ' +
      '(the accents over the same letters with a space after every 9).',
    '',
    table(['text', 'characters', 'render time', '÷ spaced', 'CPU time', '÷ spaced', 'peak RSS', '÷ spaced', 'PDF'], rows),
  ].join('\n');
  const targets: TargetCheck[] = [
    {
      target: `PDF text: a word with no space, a run of spaces or stacked accents renders within ${TIME_RATIO_LIMIT}× the time of text with spaces`,
      measured: checked.map((c) => `${c.label}: ${ratio(c.timeRatio)} (CPU ${ratio(c.cpuRatio)})`).join(', '),
      met: worstTime.timeRatio <= TIME_RATIO_LIMIT,
      gap: over(worstTime.timeRatio, TIME_RATIO_LIMIT),
    },
    {
      target: `PDF text: peak RSS of every render < ${PEAK_LIMIT_MB} MB`,
      measured: `largest ${mb(worstPeak.peak)} (${worstPeak.label})`,
      met: worstPeak.peak < PEAK_LIMIT_MB,
      gap: over(worstPeak.peak, PEAK_LIMIT_MB),
    },
  ];
  return { id: 'pdf', title: '12. The PDF with long text', markdown, targets, durationMs: performance.now() - started };
}
