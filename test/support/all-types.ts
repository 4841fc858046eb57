import type { Column, TableDefinition, TableRow } from '../../shared/table/table';

/** One column of each scalar type a renderer formats, keyed and described by what it holds. */
export const ALL_TYPES_COLUMNS: readonly Column[] = [
  { key: 'title', type: 'text', description: 'text' },
  { key: 'count', type: 'integer', description: 'integer' },
  { key: 'score', type: 'number', description: 'number' },
  { key: 'progress', type: 'percent', description: 'percent' },
  { key: 'due', type: 'date', description: 'date' },
  { key: 'updated_at', type: 'datetime', description: 'datetime' },
  { key: 'url', type: 'link', description: 'link' },
  { key: 'blocked', type: 'boolean', description: 'boolean' },
];

/** A table with every scalar column type, for the render tests (CSV, xlsx). */
export function allTypesTable(name = 'all-types'): TableDefinition {
  return { name, columns: [...ALL_TYPES_COLUMNS] };
}

/** A row of ALL_TYPES_COLUMNS with a value in each, including a float sum that only prints exactly when written exactly. */
export function allTypesRow(link: { text: string; url: string } = { text: 'Open', url: 'https://planning.example.com/items/1?a=1&b=2' }): TableRow {
  return {
    values: [
      'Risk A',
      42,
      0.1 + 0.2,
      45,
      new Date(Date.UTC(2026, 10, 21)),
      new Date('2026-11-21T07:00:00Z'),
      link,
      true,
    ],
  };
}
