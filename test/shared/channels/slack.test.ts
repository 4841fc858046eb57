import { describe, expect, it } from 'vitest';
import { slackPayload } from '../../../shared/channels/slack';
import { slackProblems } from '../../support/webhook-recorder';
import { hugeMessage, sampleMessage } from '../../support/channel-message';

type Block = { type: string; text?: { text: string }; elements?: { text: { text: string } | string; url?: string; type?: string }[] };

function allText(payload: { blocks: Block[] }): string {
  return payload.blocks
    .flatMap((b) => [b.text?.text ?? '', ...(b.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : e.text.text))])
    .join('\n');
}

const slack = (message: Parameters<typeof slackPayload>[0]) => slackPayload(message) as unknown as { text: string; blocks: Block[] };

describe('the Slack message', () => {
  it("shows the headline figures, what needs attention, the changes count and two buttons, in that order (the e-mail's)", () => {
    const payload = slack(sampleMessage());
    expect(slackProblems(payload)).toEqual([]);
    const text = allText(payload);
    // An item with an address in the planning tool links to it (`<url|text>`); one without is text.
    const order = ['Open risks: *12 (+4 since 16 Nov)*', '*Needs attention*', '• <https://planning.example.test/risks/reg-1/r-1|Risk R-1: no owner>',
      '• Risk R-2: &lt;script&gt;', 'What changed since 16 Nov 2026', '2 added, 0 removed, 1 changed.',
      '<https://tracker.example.com/browse/R-9|Risks R-9 Vendor lock-in: added>', 'Risks R-1 Supplier delay: Status: Open → Mitigated'];
    const at = order.map((o) => text.indexOf(o));
    expect(at.every((p) => p >= 0), text).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const actions = payload.blocks.find((b) => b.type === 'actions')!;
    expect(actions.elements!.map((e) => [typeof e.text === 'string' ? e.text : e.text.text, e.url])).toEqual([
      ['Open the workbook', 'https://reports.example.test/links/wb-token'],
      ['Get a fresh copy now', 'https://reports.example.test/run/fresh-token'],
    ]);
    // The notification and the fallback: the headline figures, not the change counts.
    expect(payload.text).toBe('Weekly &lt;planning&gt; &amp; risks: Open risks 12 · Open high or critical risks 3 · OKR progress 40.0 % · 2 items need attention');
  });

  it('escapes the characters Slack reads as markup in values from the planning tool', () => {
    const text = allText(slack(sampleMessage()));
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).not.toContain('<script>');
  });

  it('stays within Block Kit limits for a huge report, saying how much more is in the workbook', () => {
    const payload = slack(hugeMessage());
    expect(slackProblems(payload)).toEqual([]);
    expect(payload.blocks).toHaveLength(50);
    expect(payload.blocks.at(-1)!.type).toBe('context');
    expect(payload.blocks.some((b) => b.type === 'actions')).toBe(true);
    const attention = payload.blocks.find((b) => b.text?.text.startsWith('*Needs attention*'))!.text!.text;
    const listed = attention.split('\n').filter((l) => l.startsWith('• ')).length;
    expect(attention).toMatch(new RegExp(`…and ${500 - listed + 7} more in the workbook$`));
  });

  it('says so when nothing needs attention and leaves out buttons it has no link for', () => {
    const payload = slack(sampleMessage({ attention: [], workbookUrl: undefined, freshCopyUrl: undefined, changes: undefined }));
    expect(slackProblems(payload)).toEqual([]);
    expect(allText(payload)).toContain('Nothing needs attention.');
    expect(payload.blocks.some((b) => b.type === 'actions')).toBe(false);
  });
});
