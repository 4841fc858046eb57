// @tier slow
import { readdirSync, readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../cli/demo-command';
import { localStackAddress, type LocalStackAddress } from '../../cli/local-link-keys';
import { launchBrowser } from '../support/browser';
import { captureIo } from '../support/cli-io';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { readWorkbook } from '../support/read-output';
import { makeTempDir, type TempDir } from '../support/temp-dir';

/**
 * The demo and the local stack, one click apart: with the local stack running (as `npm run local`
 * starts it, here on free ports), `npm run demo -- --local` writes its run where the stack's functions
 * read runs, and every link of its e-mail and chat messages opens something real there. In Chromium:
 * open the demo's email.html, click "Open the workbook", receive the run's workbook and read it.
 */

/**
 * A free port whose next two are free as well (the local stack's API, S3 and DynamoDB), below Linux's
 * ephemeral range (32768 and up), where the test's own outgoing connections take their ports.
 */
async function freePorts(): Promise<number> {
  const listen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const bound = (server.address() as { port: number }).port;
        server.close(() => resolve(bound));
      });
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + randomInt(12_000);
    if ((await listen(base)) !== undefined && (await listen(base + 1)) !== undefined && (await listen(base + 2)) !== undefined) return base;
  }
  throw new Error('no three free ports in a row');
}

/** Every http(s) URL in a text (the HTML's hrefs, the chat messages' buttons), entities decoded. */
function urlsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/https?:\/\/[^\s"'<>\\]+/g)].map((m) => m[0].replaceAll('&amp;', '&')))];
}

describe('the demo against the local stack', () => {
  let dir: TempDir;
  let address: LocalStackAddress;
  let stack: LocalStack;
  let browser: Browser;
  let runFolder: string;

  beforeAll(async () => {
    dir = makeTempDir('demo-local');
    address = localStackAddress({ LOCAL_STACK_PORT: String(await freePorts()) });
    stack = await startLocalStack(address);
    browser = await launchBrowser();
    const io = captureIo(dir.root, { LOCAL_STACK_PORT: String(address.apiPort) });
    const code = await runDemoCommand(['--local', '--out', 'out'], io, { simulator: stack.harness.sim });
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    const dates = readdirSync(dir.path(join('out', stack.report)));
    const runs = readdirSync(dir.path(join('out', stack.report, dates[0]!)));
    runFolder = dir.path(join('out', stack.report, dates[0]!, runs[0]!));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    dir?.remove();
  });

  it('clicks the e-mail\'s workbook button in Chromium and receives that run\'s workbook', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`file://${join(runFolder, 'email.html')}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Open the workbook' }).click()]);
    expect(download.url().startsWith(`http://127.0.0.1:${address.s3Port}/${address.reportsBucket}/${address.reportsPrefix}/${stack.report}/`)).toBe(true);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const workbook = await readWorkbook(await download.path());
    expect(workbook.worksheets.map((w) => w.name)).toContain('Summary');
    expect(workbook.worksheets.length).toBeGreaterThan(3);
    await context.close();
  });

  it('opens every link of the e-mail and the chat messages: files, the run link\'s page, unsubscribe', async () => {
    const texts = ['email.html', 'email.eml', 'slack.json', 'teams.json'].map((file) => readFileSync(join(runFolder, file), 'utf8'));
    const links = urlsIn(texts.join('\n')).filter((url) => url.startsWith(address.apiUrl));
    expect(links.some((url) => url.includes('/links/'))).toBe(true);
    expect(links.some((url) => url.includes('/run/'))).toBe(true);
    expect(links.some((url) => url.includes('/unsubscribe/'))).toBe(true);
    const answers = await Promise.all(links.map(async (url) => ({ url: url.slice(address.apiUrl.length, address.apiUrl.length + 12), status: (await fetch(url)).status })));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const runLink = links.find((url) => url.includes('/run/'))!;
    const page = await (await browser.newContext()).newPage();
    await page.goto(runLink);
    await expect.poll(() => page.title()).toMatch(/Demo company/);
  });
});
