import { describe, expect, it } from 'vitest';
import { pageLocale, spokenByBrowser } from '../../../shared/http/page-language';

describe("a page's language", () => {
  it("speaks the link's locale before the browser's", () => {
    expect(pageLocale('fr-FR', 'de-DE,de;q=0.9')).toBe('fr-FR');
    expect(pageLocale('en-US', 'de-DE')).toBe('en-US');
  });

  it("takes the browser's most wanted language that has a catalogue, by weight and then order", () => {
    expect(spokenByBrowser('ja-JP, fr-CH;q=0.8, de;q=0.9')).toBe('de');
    expect(spokenByBrowser('it;q=0.9, fr-CA;q=0.9, de;q=0.5')).toBe('fr-CA');
    expect(spokenByBrowser('en-US,de;q=0.5')).toBe('en-US');
    expect(pageLocale(undefined, 'de-AT')).toBe('de-AT');
  });

  it('writes English when the browser asks for nothing we speak, or asks badly', () => {
    expect(pageLocale(undefined, undefined)).toBe('en-GB');
    expect(pageLocale(undefined, 'ja-JP, zh;q=0.5, *;q=0.1')).toBe('en-GB');
    expect(pageLocale(undefined, 'de;q=0, not a tag!, fr;q=abc')).toBe('en-GB');
    expect(pageLocale('not a tag!', 'fr')).toBe('fr');
  });
});
