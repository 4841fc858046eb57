import { describe, expect, it } from 'vitest';
import type { ChangesDigest } from '../../../shared/email/changes-section';
import { renderReportEmail, type ReportEmailInput } from '../../../shared/email/email-content';
import type { SummarySection } from '../../../shared/table/table';
import { readerFormat } from '../../../shared/core/format';

const headline = { heading: 'Headline', role: 'headline', lines: [{ label: 'Open risks', value: 42, type: 'integer', delta: '+4 since 16 Nov' }] } as SummarySection;
const detail: SummarySection = { heading: 'Rows', lines: [{ label: 'risks', value: 50, type: 'integer' }] };

const input = (changes: ChangesDigest, sections: SummarySection[] = [headline, detail]): ReportEmailInput => ({
  reportName: 'Weekly',
  generatedAt: new Date('2026-11-23T06:00:00Z'),
  format: readerFormat('en-GB', 'UTC'),
  summary: { title: 'Weekly', sections },
  links: [],
  changes,
});

const digest: ChangesDigest = {
  since: '16 Nov 2026',
  note: null,
  counts: { added: 2, removed: 1, changed: 3, scope: 0 },
  top: [
    { table: 'Risks', kind: 'changed', key: 'ENT-4', title: '<script>x</script>', what: 'Status', from: 'Open', to: 'Closed' },
    { table: 'Board items', kind: 'added', key: 'PLT-9', title: 'Checkout redesign', what: 'added', from: null, to: null },
  ],
  leftOut: [{ count: 1, weight: 'raised' }, { count: 4, weight: 'status' }],
};

describe('the e-mail\'s "What changed since" section', () => {
  it('follows the headline figures with counts, the top changes and how many more there are', () => {
    const { text, html } = renderReportEmail(input(digest));
    const lines = text.split('\n');
    const at = (x: string) => lines.findIndex((l) => l.includes(x));
    expect(at('What changed since 16 Nov 2026')).toBeGreaterThan(at('Open risks'));
    expect(at('Open risks')).toBeGreaterThan(0);
    expect(lines).toContain('  In all: 2 added, 1 removed, 3 changed.');
    expect(lines).toContain('  Risks ENT-4 <script>x</script>: Status: Open → Closed');
    expect(lines).toContain('  Board items PLT-9 Checkout redesign: added');
    expect(lines).toContain("  More: 1 more risk level raised and 4 more status changes, in the workbook's Changes sheet");
    expect(html).toContain('What changed since 16 Nov 2026');
    expect(html).not.toContain('<script>');
    expect(html.indexOf('What changed since')).toBeGreaterThan(html.indexOf('Open risks'));
  });

  it('sets a space before each colon in French, as the catalogue\'s own sentences do ("Statut : Open → Closed"), and counts one change in the singular', () => {
    const { text } = renderReportEmail({ ...input(digest), format: readerFormat('fr-FR', 'Europe/Paris') });
    const lines = text.split('\n');
    expect(lines).toContain('  Risks ENT-4 <script>x</script> : Status : Open → Closed');
    expect(lines).toContain('  Board items PLT-9 Checkout redesign : added');
    // French counts 0 and 1 in the singular: "1 supprimé", not "1 supprimés".
    expect(lines).toContain('  Au total : 2 ajoutés, 1 supprimé, 3 modifiés.');
    expect(lines.filter((l) => /\S: /.test(l))).toEqual([]);
  });

  it('comes first when the Summary has no headline, and says why when nothing was compared', () => {
    const { text } = renderReportEmail(
      input({ since: null, note: 'This is the first run of this report, so there is nothing to compare with yet.', counts: { added: 0, removed: 0, changed: 0, scope: 0 }, top: [], leftOut: [] }, [detail]),
    );
    const lines = text.split('\n');
    expect(lines.slice(2, 5)).toEqual(['', 'What changed', '  Not compared: This is the first run of this report, so there is nothing to compare with yet.']);
  });

  it('says "Nothing changed." when the comparison found nothing', () => {
    const { text } = renderReportEmail(input({ ...digest, counts: { added: 0, removed: 0, changed: 0, scope: 0 }, top: [], leftOut: [] }));
    expect(text).toContain('What changed since 16 Nov 2026\n  In all: Nothing changed.\n');
  });
});
