import { describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { emailReaders, readerLocales } from '../../../../shared/report/definition/readers';
import { definitionIssues } from '../../../support/definition-issues';

const issuesOf = (input: unknown) => definitionIssues(() => parseReportDefinition(input));

const base = { name: 'acme', datasets: { risks: {} }, locale: 'en-GB' };

describe('email.to recipients', () => {
  it('takes plain addresses and { address, locale?, person? }, each reader in their locale (default the report’s)', () => {
    const d = parseReportDefinition({
      ...base,
      email: { to: ['a@example.test', { address: 'b@example.test', locale: 'de-de', person: 'u-7' }, { address: 'A@example.test', locale: 'fr-FR' }], cc: ['c@example.test'] },
      delivery: { channels: [{ type: 'teams', webhook: { secretId: 's', key: 'k' }, locale: 'fr-FR' }] },
    });
    expect(emailReaders(d)).toEqual([
      { address: 'a@example.test', locale: 'en-GB' },
      { address: 'b@example.test', locale: 'de-DE', person: 'u-7' },
      { address: 'c@example.test', locale: 'en-GB' },
    ]);
    expect(readerLocales(d)).toEqual(['de-DE', 'fr-FR']);
  });

  it('says what is wrong with a recipient, by its path', () => {
    expect(issuesOf({ ...base, email: { to: [{ address: 'not an address' }] } })).toEqual([
      { path: 'email.to.0.address', message: 'must be a plain e-mail address like team@example.com, not "not an address"' },
    ]);
    expect(issuesOf({ ...base, email: { to: [{ address: 'b@example.test', locale: 'de_DE' }] } })).toEqual([
      { path: 'email.to.0.locale', message: "\"de_DE\" is not a BCP 47 language tag: give a BCP 47 tag such as en-GB, de-DE or fr-FR, or leave locale out for the report's locale" },
    ]);
    expect(issuesOf({ ...base, email: { to: [{ address: 'b@example.test', lang: 'de' }] } })).toEqual([
      { path: 'email.to.0', message: expect.stringContaining('lang') as string },
    ]);
    expect(issuesOf({ ...base, email: { to: [42] } })).toEqual([
      { path: 'email.to.0', message: 'must be an e-mail address, or { "address": …, "locale"?: …, "person"?: … }' },
    ]);
  });
});
