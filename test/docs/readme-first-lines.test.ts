import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** What a newcomer reads before deciding to run anything: the first code block and the paragraph after it. */
const FIRST = README.slice(0, README.indexOf('\n\n', README.indexOf('```\n', README.indexOf('```sh')) + 4));

describe("the README's first lines", () => {
  it('keep the demo and the tests as the first two commands, then offer the fast tier for a first try', () => {
    const commands = /```sh\n([\s\S]*?)```/.exec(README)![1]!.split('\n').filter(Boolean);
    expect(commands[0]).toMatch(/^npm ci && npm run demo /);
    expect(commands[1]).toMatch(/^npm test /);
    expect(commands[2]).toMatch(/^npm run test:fast +# a first try/);
  });

  it('say how long npm test takes on 2 cores and what its slow tier needs, and how to install it', () => {
    expect(FIRST).toMatch(/`npm test` runs both tiers: about \d+ minutes on an idle 2-core machine, about \d+ on one running a second suite beside it/);
    for (const need of ['Chromium', 'LibreOffice', 'poppler-utils', 'sudo apt-get install -y chromium libreoffice-calc-nogui poppler-utils']) expect(FIRST).toContain(need);
  });
});
