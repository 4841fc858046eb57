import { describe, expect, it } from 'vitest';
import { shellQuoted } from '../../../shared/core/text';
import { emailAddress, emailAddressProblem } from '../../../shared/email/email-address';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { ReportDefinitionError } from '../../../shared/core/errors';

/**
 * Recipient addresses as SES takes them (issue 42, item 6): every address the attack round found
 * accepted although SES refuses it (or that reads differently from what it is) is refused where a
 * definition's recipients are checked, with the rule and the address, shown so nothing in it is
 * invisible or obeyed.
 */
const REFUSED: readonly [string, string, RegExp][] = [
  ['a NUL', 'ann\u0000@example.test', /"ann\\u0000@example\.test" has a NUL \(U\+0000\) at character 4/],
  ['ESC', 'ann\u001b[31m@example.test', /has a control character \(U\+001B\) at character 4/],
  ['DEL', 'ann\u007f@example.test', /has DEL \(U\+007F\)/],
  ['a zero-width space', 'ann\u200b@example.test', /"ann\\u200b@example\.test" has a zero-width space \(U\+200B\)/],
  ['a right-to-left override', '\u202etset.elpmaxe@nna', /has a right-to-left override \(U\+202E\) at character 1/],
  ['a byte-order mark', 'ann@exa\ufeffmple.test', /has a byte-order mark \(U\+FEFF\)/],
  ['a lone surrogate', 'ann\ud800@example.test', /has a lone surrogate \(U\+D800\)/],
  ['a full-width at sign', 'ann\uff20evil.test@example.test', /has a full-width ＠ \(U\+FF20\)/],
  ['a 65-character local part', `${'a'.repeat(65)}@example.test`, /at most 64 characters before the @: "a{65}@example\.test" has 65/],
  ['a leading dot', '.ann@example.test', /must not start or end with a dot before the @: "\.ann@example\.test"/],
  ['a trailing dot', 'ann.@example.test', /must not start or end with a dot before the @/],
  ['a double dot', 'ann..lee@example.test', /must not have two dots in a row before the @: "ann\.\.lee@example\.test"/],
  ['an empty domain label', 'ann@example..test', /in its domain/],
  ['a 64-character domain label', `ann@${'d'.repeat(64)}.test`, /at most 63 characters in each dot-separated part of its domain: "ann@d{64}\.test" has a part of 64/],
  ['an underscore in the domain', 'ann@mail_box.example.test', /only letters, digits and hyphens in each dot-separated part of its domain: "ann@mail_box\.example\.test" has "_" in "mail_box"/],
  ['a slash in the domain', 'ann@example.test/x', /only letters, digits and hyphens .*has "\/" in "test\/x"/],
  ['a plus in the domain', 'ann@ex+ample.test', /has "\+" in "ex\+ample"/],
  ['a domain label starting with a hyphen', 'ann@-example.test', /must not start or end a dot-separated part of its domain with a hyphen: "ann@-example\.test" has "-example"/],
  ['a domain label ending with a hyphen', 'ann@example-.test', /with a hyphen: "ann@example-\.test" has "example-"/],
  ['a top-level label ending with a hyphen', 'ann@example.test-', /with a hyphen: .* has "test-"/],
];

describe('recipient addresses', () => {
  it.each(REFUSED)('refuses %s, naming the rule and the address', (_what, address, message) => {
    const problem = emailAddressProblem(address);
    expect(problem).toMatch(message);
    expect(emailAddress.safeParse(address).success).toBe(false);
  });

  it('accepts what SES accepts: a 64-character local part, plus tags, dots inside, a punycode domain, 63-character and one-character labels, hyphens inside', () => {
    for (const address of [
      `${'a'.repeat(64)}@example.test`,
      'first.last+tag@sub.example.co.uk',
      'ann@xn--bcher-kva.example',
      "o'neil$x@example.test",
      `ann@${'d'.repeat(63)}.test`,
      'ann@a.b-c.example.TEST',
      'ann@123.example.test',
    ]) {
      expect(emailAddressProblem(address)).toBeUndefined();
    }
  });

  it("refuses them in a definition's to, cc and onFailure, each with its path and the address", () => {
    const definition = {
      name: 'weekly',
      datasets: { risks: {} },
      email: { to: ['ok@example.test', 'ann\u200b@example.test'], cc: ['.bob@example.test'], onFailure: ['own\u0000er@example.test'] },
    };
    let error: unknown;
    try {
      parseReportDefinition(definition);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ReportDefinitionError);
    const issues = (error as ReportDefinitionError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(issues).toEqual([
      expect.stringMatching(/^email\.to\.1: must be a plain e-mail address: "ann\\u200b@example\.test" has a zero-width space/),
      expect.stringMatching(/^email\.cc\.0: must not start or end with a dot before the @: "\.bob@example\.test"$/),
      expect.stringMatching(/^email\.onFailure\.0: must be a plain e-mail address: "own\\u0000er@example\.test" has a NUL/),
    ]);
    // Nothing invisible or obeyed reaches the message people read.
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    expect((error as Error).message).not.toMatch(/[\u0000\u001b\u007f\u200b\u202e]/);
  });
});

describe('a command we suggest, for a POSIX shell', () => {
  it('leaves a plain word bare and single-quotes anything a shell would read', () => {
    expect(shellQuoted('ann@example.test')).toBe('ann@example.test');
    expect(shellQuoted('a$(rm -rf ~)|b`id`@example.test')).toBe("'a$(rm -rf ~)|b`id`@example.test'");
    expect(shellQuoted("o'neil@example.test")).toBe(`'o'\\''neil@example.test'`);
  });
});
