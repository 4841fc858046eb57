import { readerFormat } from '../../shared/core/format';
import type { PdfReport } from '../../shared/render/pdf/document';

/** The text in every place the PDF has text: title and header, headings, lines, a table, a chart's block. */
export function reportWithTextEverywhere(text: string): PdfReport {
  return {
    title: text,
    header: `${text} – 2026-11-23`,
    summary: {
      title: text,
      sections: [
        { heading: text, lines: [{ label: text, value: text, delta: text }] },
        { heading: 'Table', lines: [], grid: { columns: [{ label: text }, { label: 'Open', type: 'integer' }], rows: [{ values: [text, 3] }] } },
      ],
    },
    chartSheets: [
      {
        heading: text,
        sentence: text,
        blocks: [
          {
            title: text,
            categoryLabel: text,
            columns: [{ label: text, format: 'integer' }],
            rows: [{ category: text, values: [2] }, { category: '2026-11-23', values: [3] }],
            chart: { kind: 'line', series: [0] },
          },
        ],
      },
    ],
    createdAt: new Date('2026-11-23T06:00:00Z'),
    format: readerFormat('en-GB', 'Europe/Berlin'),
    creator: 'planning-report-exporter',
  };
}
