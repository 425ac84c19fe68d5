/** A plain-text table with aligned columns, for terminals and closing notes. */
export function formatTable(rows: readonly object[], columns: readonly string[]): string {
  const cells = rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? '')))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)))
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [line([...columns]), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}
