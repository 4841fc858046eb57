import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The text of each page of a PDF as poppler's `pdftotext -layout` lays it out (an independent reader). */
export async function pdfPages(path: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-layout', path, '-'], { maxBuffer: 64 * 1024 * 1024 });
  const pages = stdout.split('\f');
  // pdftotext ends every page with a form feed: the last piece is empty.
  if (pages.at(-1)?.trim() === '') pages.pop();
  return pages;
}

/** The page count and the metadata poppler reads (`pdfinfo`). */
export async function pdfInfo(path: string): Promise<Record<string, string>> {
  const { stdout } = await run('pdfinfo', ['-isodates', path]);
  return Object.fromEntries(stdout.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]));
}

/** A label and its value on one line of the layout, with only spaces between them. */
export function labelled(label: string, value: string): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${escape(label)} +${escape(value)}(?: |$)`, 'm');
}
