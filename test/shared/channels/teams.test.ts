import { describe, expect, it } from 'vitest';
import { teamsEscape, teamsPayload } from '../../../shared/channels/teams';
import { teamsProblems } from '../../support/webhook-recorder';
import { hugeMessage, sampleMessage } from '../../support/channel-message';

type Card = {
  type: string;
  version: string;
  body: { type: string; text?: string; facts?: { title: string; value: string }[] }[];
  actions?: { type: string; title: string; url: string }[];
};
const cardOf = (payload: unknown) => (payload as { attachments: { content: Card }[] }).attachments[0]!.content;

describe('the Teams message', () => {
  it("is a message with one Adaptive Card in the e-mail's order: figures as facts, needs attention, changes, OpenUrl buttons", () => {
    const payload = teamsPayload(sampleMessage());
    expect(teamsProblems(payload)).toEqual([]);
    const card = cardOf(payload);
    expect(card.type).toBe('AdaptiveCard');
    const facts = card.body.flatMap((e) => e.facts ?? []);
    expect(facts).toContainEqual({ title: 'Open risks', value: '12 (+4 since 16 Nov)' });
    const texts = card.body.map((e) => e.text ?? '');
    // An item with an address in the planning tool is a markdown link; one without is text.
    const order = ['Risks', 'Needs attention', '• [Risk R-1: no owner](https://planning.example.test/risks/reg-1/r-1)',
      '• Risk R-2: \\<script\\>alert(1)\\</script\\> overdue', 'What changed since 16 Nov 2026', '2 added, 0 removed, 1 changed.'];
    const at = order.map((o) => texts.indexOf(o));
    expect(at.every((p) => p >= 0), texts.join('\n')).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open the workbook', url: 'https://reports.example.test/links/wb-token', style: 'positive' },
      { type: 'Action.OpenUrl', title: 'Get a fresh copy now', url: 'https://reports.example.test/run/fresh-token' },
    ]);
  });

  // Before: a risk titled like this became a link (and bold text) in the organisation's Teams channel.
  it('shows text from the planning tool as typed: no link, emphasis, list or heading of its own', () => {
    const bait = '[Sign in again](https://ev.il) **now**';
    const payload = teamsPayload(
      sampleMessage({
        title: `Weekly ${bait}`,
        headline: [{ heading: `# ${bait}`, figures: [{ label: bait, value: `_${bait}_` }] }],
        attention: [
          { text: `Risk R-1: ${bait}`, url: 'https://planning.example.test/risks/reg-1/r-1' },
          { text: `Risk R-2: ${bait}\n- 1. <https://ev.il>` },
        ],
        changes: { heading: bait, lines: [{ text: `~~${bait}~~` }], total: 1 },
      }),
    );
    expect(teamsProblems(payload)).toEqual([]);
    const card = cardOf(payload);
    const shown = [...card.body.map((e) => e.text ?? ''), ...card.body.flatMap((e) => e.facts ?? []).flatMap((f) => [f.title, f.value])];
    // Markup that is not escaped: the one link the exporter makes itself is all there is.
    const markup = shown.flatMap((t) => [...t.matchAll(/(?<!\\)(\[(?:\\.|[^\]\\])*\]\([^)]*\)|\*\*|(?<![\w\\])_|~~|<https?:|^#|^- |^\d+\. )/gm)].map((m) => m[0]));
    expect(markup).toEqual(['[Risk R-1: \\[Sign in again\\](https://ev.il) \\*\\*now\\*\\*](https://planning.example.test/risks/reg-1/r-1)']);
    expect(shown).toContain('Weekly \\[Sign in again\\](https://ev.il) \\*\\*now\\*\\*');
    expect(shown).toContain('• Risk R-2: \\[Sign in again\\](https://ev.il) \\*\\*now\\*\\*\n\\- 1. \\<https://ev.il\\>');
  });

  it('escapes only what markdown reads as markup', () => {
    expect(teamsEscape('Risk R-12: 3.5 % -2 +4 (open) a=b 1.5')).toBe('Risk R-12: 3.5 % -2 +4 (open) a=b 1.5');
    expect(teamsEscape('- item\n+ item\n===\n2) two\n  10. ten')).toBe('\\- item\n\\+ item\n\\===\n2\\) two\n  10\\. ten');
    expect(teamsEscape('a\\b `code` <b> ~x~ #tag')).toBe('a\\\\b \\`code\\` \\<b\\> \\~x\\~ \\#tag');
  });

  it('lists at most 15 attention items and counts the rest', () => {
    const card = cardOf(teamsPayload(hugeMessage()));
    expect(teamsProblems(teamsPayload(hugeMessage()))).toEqual([]);
    expect(card.body.filter((e) => e.text?.startsWith('• '))).toHaveLength(15);
    expect(card.body.map((e) => e.text)).toContain(`…and ${500 - 15 + 7} more in the workbook`);
  });

  it('notifies with the headline figures (the card\'s fallback text), and lists the changes under their heading', () => {
    const card = cardOf(teamsPayload(sampleMessage())) as unknown as { fallbackText: string; body: { text?: string }[] };
    expect(card.fallbackText).toBe('Weekly <planning> & risks: Open risks 12 · Open high or critical risks 3 · OKR progress 40.0 % · 2 items need attention');
    const texts = card.body.map((e) => e.text ?? '');
    // A change whose item has a tracker address links there, as the e-mail's does.
    const at = ['Needs attention', 'What changed since 16 Nov 2026', '[Risks R-9 Vendor lock-in: added](https://tracker.example.com/browse/R-9)'].map((t) => texts.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('has no actions without links and says when nothing needs attention', () => {
    const card = cardOf(teamsPayload(sampleMessage({ attention: [], workbookUrl: undefined, freshCopyUrl: undefined })));
    expect(card.actions).toBeUndefined();
    expect(card.body.map((e) => e.text)).toContain('Nothing needs attention.');
  });
});
