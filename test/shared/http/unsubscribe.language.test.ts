import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { silentLog } from '../../../shared/core/logger';
import { catalogOf } from '../../../shared/definitions/catalog';
import { createApiRouter, type ApiDependencies } from '../../../shared/http/router';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { createUnsubscribeToken } from '../../../shared/links/unsubscribe-token';
import { SuppressionList } from '../../../shared/messages/recipients/suppressions';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';
import { readHtml } from '../../support/read-html';

/** The unsubscribe pages in the recipient's language, through the export API's router as API Gateway hands it the request. */
const T0 = new Date('2026-11-23T06:00:00Z');
const KEYS = { current: { id: 'k1', secret: 'c'.repeat(48) } };
const REPORTS = { weekly: { name: 'weekly', locale: 'fr-FR' }, plain: { name: 'plain' } };

describe("the unsubscribe pages in the reader's language", () => {
  let dir: string;
  let ledger: LocalLedger;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'unsubscribe-language-'));
    ledger = new LocalLedger(join(dir, '.ledger'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const api = (): ApiDependencies =>
    ({ suppressions: ledger, definitions: catalogOf(REPORTS), linkKeys: () => Promise.resolve(KEYS), clock: fixedClock(T0), log: silentLog }) as unknown as ApiDependencies;
  async function open(method: 'GET' | 'POST', token: string, options: { body?: string; acceptLanguage?: string } = {}) {
    const event = httpApiEvent(method, `${method} /unsubscribe/{token}`, `/unsubscribe/${token}`, {
      pathParameters: { token },
      ...(options.body !== undefined && { body: options.body }),
      ...(options.acceptLanguage !== undefined && { headers: { 'accept-language': options.acceptLanguage } }),
    });
    const answer = await createApiRouter(api()).resolve(event, lambdaContext('export-api'));
    return { status: answer.statusCode, ...readHtml(answer.body ?? '') };
  }
  const token = (report: string, lang?: string) => createUnsubscribeToken({ report, address: 'ann@example.test', ...(lang && { lang }) }, KEYS.current, T0);

  it("speaks the recipient's language the token carries, over the report's and the browser's", async () => {
    const page = await open('GET', token('weekly', 'de-DE'), { acceptLanguage: 'fr' });
    expect(page.lang).toBe('de-DE');
    expect(page.title).toBe('E-Mails von weekly');
    expect(page.text).toContain('ann@example.test erhält den Bericht „weekly“ per E-Mail.');
    expect(page.text).toContain('Diesen Bericht nicht mehr an mich senden');
    const paused = await open('POST', token('weekly', 'de-DE'), { body: 'action=unsubscribe' });
    expect(paused.title).toBe('Abgemeldet');
    expect(paused.text).toContain('Diesen Bericht wieder an mich senden');
    expect(await new SuppressionList(ledger).of('weekly', ['ann@example.test'])).toMatchObject({ 'ann@example.test': { reason: 'unsubscribed' } });
  });

  it("speaks the report's locale when the token names none, and the browser's when the report names none", async () => {
    const french = await open('GET', token('weekly'), { acceptLanguage: 'de' });
    expect({ lang: french.lang, title: french.title }).toEqual({ lang: 'fr-FR', title: 'E-mails de weekly' });
    const browser = await open('GET', token('plain'), { acceptLanguage: 'ja, de-CH;q=0.8' });
    expect({ lang: browser.lang, title: browser.title }).toEqual({ lang: 'de-CH', title: 'E-Mails von plain' });
    const english = await open('GET', token('plain'));
    expect({ lang: english.lang, title: english.title }).toEqual({ lang: 'en-GB', title: 'E-mails of plain' });
    expect(english.text).toContain('ann@example.test gets the report “plain” by e-mail.');
  });

  it("refuses a forged link in the browser's language", async () => {
    const page = await open('GET', `${token('weekly')}x`, { acceptLanguage: 'fr-FR' });
    expect({ status: page.status, lang: page.lang, title: page.title }).toEqual({ status: 403, lang: 'fr-FR', title: 'Ce lien ne fonctionne pas' });
  });
});
