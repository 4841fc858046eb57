/** Counts in the commands' output: "1 row", "2 rows", "12,000 rows" — never "1 rows". */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : plural}`;
}
