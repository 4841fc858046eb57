import { describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { NOT_COMPARED, notComparedText } from '../../../../shared/core/i18n/not-compared';
import { changesSection, type ChangesDigest } from '../../../../shared/email/changes-section';

describe('why a run was not compared', () => {
  it('reads in the reader\'s language, while changes.csv and the manifest keep the English words', () => {
    const de = readerFormat('de-DE', 'UTC');
    expect(notComparedText(NOT_COMPARED.first.text, de.messages)).toBe('Dies ist der erste Lauf dieses Berichts, daher gibt es noch nichts zu vergleichen.');
    expect(notComparedText(NOT_COMPARED.first.text, readerFormat('en-GB', 'UTC').messages)).toBe(NOT_COMPARED.first.text);
    // A note with its own details (an unreadable snapshot and its error) is shown as written.
    expect(notComparedText('Risks were not compared: the earlier run\'s snapshot is gone.', de.messages)).toBe('Risks were not compared: the earlier run\'s snapshot is gone.');
  });

  it('opens a French first run\'s What changed in French', () => {
    const fr = readerFormat('fr-FR', 'UTC');
    const digest: ChangesDigest = { since: null, note: NOT_COMPARED.first.text, counts: { added: 0, removed: 0, changed: 0, scope: 0 }, top: [], leftOut: [] };
    const section = changesSection(digest, fr);
    expect(section.lines[0]).toMatchObject({ label: 'Non comparé', value: 'C\u2019est la première exécution de ce rapport : il n\u2019y a encore rien à comparer.' });
  });
});
