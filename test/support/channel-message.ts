import type { ChannelMessage } from '../../shared/channels/channel';

/** A message as a real run would give it, with ways to make it as large as a big portfolio's. */
export function sampleMessage(overrides: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    title: 'Weekly <planning> & risks',
    notification: 'Open risks 12 · Open high or critical risks 3 · OKR progress 40.0 % · 2 items need attention',
    generated: '2026-11-23 07:00 (Europe/Berlin)',
    runId: 's-20261123T060000Z',
    headline: [
      { heading: 'Risks', figures: [{ label: 'Open risks', value: '12 (+4 since 16 Nov)' }, { label: 'High', value: '3' }] },
      { heading: 'OKR progress by strategic theme', figures: [{ label: 'Growth', value: 'Progress 40 %' }] },
    ],
    attention: [
      { text: 'Risk R-1: no owner', url: 'https://planning.example.test/risks/reg-1/r-1' },
      { text: 'Risk R-2: <script>alert(1)</script> overdue' },
    ],
    attentionMore: 0,
    changes: {
      heading: 'What changed since 16 Nov 2026',
      lines: [
        { text: '2 added, 0 removed, 1 changed.' },
        { text: 'Risks R-9 Vendor lock-in: added', url: 'https://tracker.example.com/browse/R-9' },
        { text: 'Risks R-1 Supplier delay: Status: Open → Mitigated' },
      ],
      total: 3,
    },
    workbookUrl: 'https://reports.example.test/links/wb-token',
    freshCopyUrl: 'https://reports.example.test/run/fresh-token',
    ...overrides,
  };
}

/** 60 headline sections, 500 attention lines and texts far past every limit. */
export function hugeMessage(): ChannelMessage {
  return sampleMessage({
    title: 'T'.repeat(5000),
    headline: Array.from({ length: 60 }, (_, s) => ({
      heading: `Board ${s} ${'h'.repeat(4000)}`,
      figures: Array.from({ length: 200 }, (_, f) => ({ label: `Figure ${f}`, value: 'v'.repeat(40) })),
    })),
    attention: Array.from({ length: 500 }, (_, i) => ({ text: `Risk R-${i}: ${'why '.repeat(30)}` })),
    attentionMore: 7,
  });
}
