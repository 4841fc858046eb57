import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderTableDocs } from '../../scripts/table-docs';

describe('docs/tables.md', () => {
  it('matches the column definitions (regenerate with npx tsx scripts/table-docs.ts)', () => {
    const onDisk = readFileSync(new URL('../../docs/tables.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderTableDocs());
  });
});
