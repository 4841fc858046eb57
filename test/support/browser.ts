import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where a Chromium is looked for, in order (CHROME_PATH first). */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const INSTALL_COMMAND = 'sudo apt-get install -y chromium';

/**
 * The Chromium the browser tests drive: CHROME_PATH, else a Debian/Ubuntu install. As root with
 * apt-get it is installed once (`apt-get install -y chromium`); otherwise this throws with the one
 * command to run. It never returns nothing: a browser test must fail, not skip, without a browser.
 */
export function findBrowser(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.CHROME_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROME_PATH is set to ${configured}, which does not exist`);
    return configured;
  }
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    const apt = (args: string[]) => execFileSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    try {
      apt(['install', '-y', 'chromium']);
    } catch {
      // A fresh container has no package lists yet: fetch them once and try again.
      apt(['update']);
      apt(['install', '-y', 'chromium']);
    }
    const installed = CANDIDATES.find((candidate) => existsSync(candidate));
    if (installed) return installed;
  }
  throw new Error(`No Chromium found (looked at CHROME_PATH, ${CANDIDATES.join(', ')}). Install one with: ${INSTALL_COMMAND}`);
}

/**
 * Launches it headless with nothing phoning home. The profile is fresh: playwright gives every
 * launch its own temporary --user-data-dir (and refuses one in `args`), deleted on close.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: findBrowser(),
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
}
