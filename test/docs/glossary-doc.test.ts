import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withGlossary } from '../../scripts/glossary-docs';

describe('docs/formats.md', () => {
  it('carries the glossary of shared/core/glossary.ts (regenerate with npm run docs:glossary)', () => {
    const onDisk = readFileSync(new URL('../../docs/formats.md', import.meta.url), 'utf8');
    expect(onDisk).toContain('| OKR progress |');
    // A column per language of the catalogues, each term as that language names it.
    expect(onDisk).toContain('| name | what it is | in `de` | in `fr` |');
    expect(onDisk).toMatch(/\| OKR progress \| .* \| OKR-Fortschritt \| Avancement des OKR \|/);
    expect(onDisk).toBe(withGlossary(onDisk));
  });
});
