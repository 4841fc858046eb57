import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the lint config is plain JavaScript without type declarations
import { LONG_FUNCTIONS, MAX_FUNCTION_LINES } from '../../eslint.config.js';

interface LongFunction {
  readonly file: string;
  readonly name: string;
  readonly lines: number;
  readonly why: string;
}

/** The longest function of each file as the lint counts it (without blank lines and comments). */
async function longestFunctions(files: readonly string[]): Promise<Map<string, number>> {
  const eslint = new ESLint({
    cwd: process.cwd(),
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      { rules: { 'max-lines-per-function': ['error', { max: 1, skipBlankLines: true, skipComments: true }] } },
    ],
  });
  const results = await eslint.lintFiles([...files]);
  return new Map(
    results.map((r) => {
      const lengths = r.messages.map((m) => Number(/\((\d+)\)/.exec(m.message)?.[1] ?? 0));
      return [r.filePath.slice(process.cwd().length + 1), Math.max(0, ...lengths)];
    }),
  );
}

describe('the long functions the lint allows', () => {
  it('are each at their length today, over the limit, and say why', async () => {
    const allowed = LONG_FUNCTIONS as readonly LongFunction[];
    // No files would be every file to ESLint: an empty list has nothing to measure.
    const longest = allowed.length === 0 ? new Map<string, number>() : await longestFunctions(allowed.map((f) => f.file));
    for (const f of allowed) {
      expect(f.why.length, f.file).toBeGreaterThan(20);
      expect(f.lines, `${f.file}: over ${MAX_FUNCTION_LINES as number} lines, or off the list`).toBeGreaterThan(MAX_FUNCTION_LINES as number);
      // A function made shorter lowers its ceiling here, so the room it freed cannot be spent again.
      expect({ file: f.file, lines: longest.get(f.file) }).toEqual({ file: f.file, lines: f.lines });
    }
  }, 60_000);
});
