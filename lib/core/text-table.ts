/** A plain-text table with aligned columns, for terminals and closing notes: the first `left` columns padded on the right, the rest (figures) on the left. */
export function textTable(head: readonly string[], body: readonly (readonly string[])[], left = head.length): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)))
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i < left ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n')
}

/** Rows as a table of the named columns, every column padded on the right. */
export const formatTable = (rows: readonly object[], columns: readonly string[]): string =>
  textTable(
    columns,
    rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? ''))),
  )
