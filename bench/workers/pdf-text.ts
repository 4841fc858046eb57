/**
 * PDF text measurement (one process per run): the report's PDF (shared/render/pdf/) with one text in
 * every place it has text (title and page header, headings, Summary lines and a table, a Trends block
 * with its chart): reportWithTextEverywhere of the test kit, as wrap-text.test.ts renders it.
 *
 *   unbroken        `length` characters and no space
 *   spaced          the same length in words of 9 letters, each with a space after it
 *   spaces          `length` spaces, then a dot
 *   lines           a 4-letter word and a line break, `length` characters (a text of thousands of lines)
 *   accents         letters under 8 combining marks each, `length` characters (9 to a letter)
 *   accents-spaced  the same letters, a space after every 9 of them
 */
import { reportResult, workerInput } from '../lib/worker';
import { renderReportPdf } from '../../shared/render/pdf/document';
import { reportWithTextEverywhere } from '../../test/support/pdf-text-report';

export type PdfTextKind = 'unbroken' | 'spaced' | 'spaces' | 'lines' | 'accents' | 'accents-spaced';

export interface PdfTextResult {
  wallMs: number;
  cpuMs: number;
  bytes: number;
}

interface Input {
  kind: PdfTextKind;
  length: number;
}

const ACCENTED = 'a\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u030a';

/** The text of a kind, `length` characters long (UTF-16 code units, as the workbook counts them). */
function textOf(kind: PdfTextKind, length: number): string {
  switch (kind) {
    case 'unbroken':
      return 'x'.repeat(length);
    case 'spaced':
      return 'xxxxxxxxx '.repeat(Math.ceil(length / 10)).slice(0, length);
    case 'spaces':
      return `${' '.repeat(length - 1)}.`;
    case 'lines':
      return 'line\n'.repeat(Math.round(length / 5));
    case 'accents':
      return ACCENTED.repeat(Math.round(length / ACCENTED.length));
    case 'accents-spaced':
      return `${ACCENTED.repeat(9)} `.repeat(Math.round(length / (9 * ACCENTED.length + 1)));
  }
}

const input = workerInput<Input>();
const content = reportWithTextEverywhere(textOf(input.kind, input.length));
const cpu = process.cpuUsage();
const started = performance.now();
const bytes = await renderReportPdf(content);
const wallMs = performance.now() - started;
const used = process.cpuUsage(cpu);
reportResult({ wallMs, cpuMs: (used.user + used.system) / 1000, bytes: bytes.length } satisfies PdfTextResult);
