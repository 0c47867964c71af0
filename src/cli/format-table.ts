/** Renders rows as aligned text columns for people (the CLI's default output). */
export function formatTable(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): string {
  const cell = (value: unknown) =>
    value === null || value === undefined ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((line) => line[index]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...cells.map(line)].join('\n');
}

/** One record as `field: value` lines. */
export function formatRecord(record: Record<string, unknown>, fields: readonly string[]): string {
  const width = Math.max(...fields.map((field) => field.length));
  return fields
    .map((field) => {
      const value = record[field];
      const text =
        value === null || value === undefined ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      return `${field.padEnd(width)}  ${text}`;
    })
    .join('\n');
}
