import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * A real browser for the tests that check what a reader sees (the report e-mail). Debian's
 * chromium, driven by playwright-core (which downloads nothing). A browser test never passes
 * silently and never skips: without a browser it installs one when it can (root with apt-get),
 * else it fails with the one command to run.
 */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const INSTALL_COMMAND = 'sudo apt-get install -y chromium';

let installTried = false;

function firstExisting(): string | undefined {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROME_PATH is ${fromEnv}, which does not exist: fix it or unset it`);
    return fromEnv;
  }
  return CANDIDATES.find((path) => existsSync(path));
}

function canInstall(): boolean {
  return process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
}

/** The path of a Chromium-family browser: CHROME_PATH, then the usual Debian paths. */
export function findBrowser(): string {
  const found = firstExisting();
  if (found) return found;
  if (canInstall() && !installTried) {
    installTried = true;
    const apt = (args: string[]) => execFileSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    try {
      apt(['install', '-y', 'chromium']);
    } catch {
      // The package lists may be missing (a fresh container): fetch them once and try again.
      apt(['update']);
      apt(['install', '-y', 'chromium']);
    }
    const installed = firstExisting();
    if (installed) return installed;
  }
  throw new Error(
    `No Chromium-family browser found (looked at CHROME_PATH, ${CANDIDATES.join(', ')}). ` +
      `The browser tests need one; install it with: ${INSTALL_COMMAND}`,
  );
}

export interface LaunchedBrowser {
  /** The browser's one context, on the fresh profile. */
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Launches the browser headless on a fresh profile (playwright takes the profile as userDataDir, not
 * as a --user-data-dir argument), with nothing that phones home.
 */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const executablePath = findBrowser();
  const profile = await mkdtemp(join(tmpdir(), 'browser-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
