import { columnSince, type Column, type RowFile } from '../data/columns/column.ts'
import { versionHistory } from '../data/columns/derive.ts'
import { NO_EMPTY } from '../data/columns/kinds.ts'

/** docs/data.md's column blocks, rendered from the column table (lib/data/columns/table.ts). */

const cell = (s: string) => s.replace(/\|/g, '\\|')

/** What an empty cell, or a column the file predates, reads as: an error, empty (not applicable, not measured), or a value. */
const emptyWords = (c: Column): string =>
  c.kind.empty === NO_EMPTY ? 'error' : c.kind.empty === null || c.kind.empty === '' || c.kind.empty === undefined ? 'empty' : `\`${String(c.kind.empty)}\``

/** One table per row file, its columns in file order: unit, meaning, the schema version from which every file has it, and its empty value; then its retired columns. */
export function columnReference(files: readonly RowFile[]): string {
  return files
    .map((f) =>
      [
        `### ${f.file}`,
        '',
        '| column | unit | meaning | since | empty |',
        '|---|---|---|---|---|',
        ...f.columns.map((c) => `| \`${cell(c.name)}\` | ${cell(c.unit)} | ${cell(c.meaning)} | ${columnSince(f, c)} | ${emptyWords(c)} |`),
        '',
        ...(f.retired.length ? [`Retired (older files only, read past): ${f.retired.map((c) => `\`${c}\``).join(', ')}.`, ''] : []),
      ].join('\n'),
    )
    .join('\n')
}

/** What each schema version added to each file: a new file (its column count), or the columns appended to it. */
export function schemaVersions(files: readonly RowFile[]): string {
  const rows = versionHistory(files).map((h) => {
    const added = h.newFile
      ? `the file, ${h.columns.length} column${h.columns.length === 1 ? '' : 's'} (\`${h.columns[0]}\` … \`${h.columns.at(-1)}\`)`
      : h.columns.map((c) => `\`${c}\``).join(', ')
    return `| ${h.version} | ${h.file} | ${added} |`
  })
  return ['| version | file | added |', '|---|---|---|', ...rows, ''].join('\n')
}
