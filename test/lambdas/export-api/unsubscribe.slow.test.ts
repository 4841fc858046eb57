// @tier slow
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser';
import { startHttpApi, type LocalHttpApi } from '../../support/http-api';
import { API_BASE_URL, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { lambdaContext } from '../../support/lambda-events';

/**
 * A reader unsubscribes in a real browser from the link in the e-mail a deployed stack sent (the
 * Lambda harness: the export function e-mails through aws-ses-v2-local, the API function answers
 * the link behind the local HTTP API), and the next week's run does not e-mail that address.
 */
const WEEKLY = {
  name: 'weekly',
  title: 'Weekly planning report',
  datasets: { risks: {} },
  formats: ['csv'],
  email: { to: ['ann@example.test', 'bob@example.test'] },
};

describe('unsubscribing in a browser', () => {
  let h: LambdaHarness;
  let api: LocalHttpApi;
  let browser: Browser;
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY });
    api = await startHttpApi(h.apiHandler);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await h?.close();
  });

  const scheduled = (at: string) => h.exportHandler({ report: 'weekly', source: 'schedule', scheduledTime: at }, lambdaContext('export-report')) as Promise<{ status: string }>;
  const mailsTo = async (address: string) => (await h.ses.fetchStore()).filter((m) => m.destination.to.includes(address));

  it("pauses the reader's e-mail from the page the footer link opens, and the next run leaves that address out", async () => {
    expect((await scheduled('2026-11-23T06:00:00Z')).status).toBe('succeeded');
    const [ann] = await mailsTo('ann@example.test');
    const footer = /href="(https:\/\/api\.example\.test\/unsubscribe\/[^"]+)"/.exec(ann!.body.html ?? '')?.[1];
    expect(footer).toBeDefined();
    // The same link as the List-Unsubscribe header's, opened on the local API instead of the stack's host.
    expect(ann!.headers?.find((h) => h.name === 'List-Unsubscribe')?.value).toBe(`<${footer!}>`);
    const page = await browser.newPage();
    await page.goto(footer!.replace(API_BASE_URL, api.baseUrl));
    // Opening the page changed nothing (mail scanners open links too): only the button does.
    await page.getByRole('button', { name: 'Stop e-mailing me this report' }).click();
    await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('ann@example.test no longer gets the report “weekly” by e-mail');
    await page.close();

    await h.ses.clearStore();
    expect((await scheduled('2026-11-30T06:00:00Z')).status).toBe('succeeded');
    expect(await mailsTo('ann@example.test')).toEqual([]);
    expect(await mailsTo('bob@example.test')).toHaveLength(1);
  });
});
