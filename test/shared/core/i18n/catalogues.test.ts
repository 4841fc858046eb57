import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, SOURCE_CATALOGUE, SOURCE_LANGUAGE } from '../../../../shared/core/i18n/catalogues';
import { languageChain, messagesFor } from '../../../../shared/core/i18n/messages';
import { catalogueFiles, catalogueIndexIsCurrent, catalogueIndexSource } from '../../../../scripts/catalogue-index';

/** The ICU argument names of a message, nested ones (inside plurals and selects) included, sorted. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: readonly MessageFormatElement[]) => {
    for (const e of elements) {
      if (e.type === TYPE.argument || e.type === TYPE.number || e.type === TYPE.date || e.type === TYPE.time) names.add(e.value);
      if (e.type === TYPE.plural || e.type === TYPE.select) {
        names.add(e.value);
        for (const option of Object.values(e.options)) walk(option.value);
      }
      if (e.type === TYPE.tag) walk(e.children);
    }
  };
  walk(parse(message));
  return [...names].sort();
}

const languages = Object.keys(CATALOGUES).filter((l) => l !== SOURCE_LANGUAGE);

describe('the message catalogues', () => {
  it.each(languages)('%s has every message of the English source and no other', (language) => {
    expect(Object.keys(CATALOGUES[language]!).sort()).toEqual(Object.keys(SOURCE_CATALOGUE).sort());
  });

  it.each(languages)('%s fills the same arguments as English in every message', (language) => {
    const catalogue = CATALOGUES[language]!;
    const mismatched = Object.entries(SOURCE_CATALOGUE).flatMap(([id, source]) => {
      const own = catalogue[id];
      return own !== undefined && argumentsOf(own).join() !== argumentsOf(source).join() ? [`${id}: ${argumentsOf(own).join()} ≠ ${argumentsOf(source).join()}`] : [];
    });
    expect(mismatched).toEqual([]);
  });

  it.each(languages)('%s translates its words rather than copying the English', (language) => {
    const catalogue = CATALOGUES[language]!;
    const same = Object.entries(SOURCE_CATALOGUE).filter(([id, source]) => catalogue[id] === source && /[a-z]{4,}/.test(source.replace(/\{[^}]*\}/g, '')));
    // Loan words both languages use as SAFe does (Trends, Features, Board …) may stay; most may not.
    expect(same.length).toBeLessThan(Object.keys(SOURCE_CATALOGUE).length / 10);
  });
});

describe('a reader\'s messages', () => {
  it('reads a regional locale from its language\'s catalogue, then English', () => {
    expect(languageChain('de-AT')).toEqual(['de-AT', 'de', 'en']);
    expect(messagesFor('de-AT').t('term.openRisks')).toBe('Offene Risiken');
    expect(messagesFor('de-AT').language).toBe('de-AT');
  });

  it('reads English, and declares it, in a language without a catalogue', () => {
    const messages = messagesFor('ja-JP');
    expect(messages.t('term.openRisks')).toBe('Open risks');
    expect(messages.language).toBe('en');
    expect(messagesFor('en-US').language).toBe('en-US');
  });

  it('counts by the plural rules of the words\' language', () => {
    expect(messagesFor('en-GB').t('kind.risk', { count: 1 })).toBe('1 risk');
    expect(messagesFor('de-DE').t('changes.leftOut.status', { count: 2 })).toBe('2 weitere Statusänderungen');
    expect(messagesFor('fr-FR').t('changes.leftOut.added', { count: 1 })).toBe('1 autre ligne ajoutée');
    expect(messagesFor('fr-FR').t('email.attentionItems', { total: 0, kinds: '' })).toBe('aucun point d’attention');
  });

  it('takes a message a language lacks from the next catalogue in its chain', () => {
    const toy = { tlh: { 'term.openRisks': 'QaghmeyHom poSmoH' } };
    const messages = messagesFor('tlh', toy);
    expect(messages.t('term.openRisks')).toBe('QaghmeyHom poSmoH');
    expect(messages.t('term.risks')).toBe('Risks');
  });
});

describe('the messages folder', () => {
  it('is the registry: every catalogue file is a language, read through the index generated from the folder', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual(catalogueFiles());
    // A file added without `npm run docs:glossary` (which writes the index) fails here, naming the command.
    expect(catalogueIndexIsCurrent(), 'shared/core/i18n/catalogue-index.ts is stale: run `npm run docs:glossary`').toBe(true);
  });

  it('generates an import per file, whatever its tag', () => {
    expect(catalogueIndexSource(['de-CH', 'eo'])).toContain("import messagesDeCh from './messages/de-CH.json';\nimport messagesEo from './messages/eo.json';");
    expect(catalogueIndexSource(['de-CH', 'eo'])).toContain("{ 'de-CH': messagesDeCh, 'eo': messagesEo }");
  });
});
