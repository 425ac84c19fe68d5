import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../../lib/core/errors.ts'
import { column, rowFile, withRetired } from '../../../lib/data/columns/column.ts'
import {
  blankRow,
  cellValue,
  columnNames,
  latestVersion,
  requiredColumns,
  rowSchema,
  tableProblems,
  versionHistory,
  type RowOf,
} from '../../../lib/data/columns/derive.ts'
import { KINDS } from '../../../lib/data/columns/kinds.ts'
import { ROW_FILES } from '../../../lib/data/columns/table.ts'
import { rowColumnDocs, rowFileDocs } from '../../../lib/data/dictionary.ts'
import { appendMeasurement } from '../../../lib/data/measurements.ts'
import { SCHEMA_VERSION } from '../../../lib/data/schema.ts'
import { CELL_COLUMNS } from '../../../lib/data/grouping.ts'
import { readTable, table } from '../../../lib/data/tables.ts'
import { columnReference, schemaVersions } from '../../../lib/docs/columns.ts'
import { measurement } from '../../fixtures/rows.ts'

/** What a contributor writes to add a column: one entry appended to its file's list, one version up. */
const NEXT = SCHEMA_VERSION + 1
const grown = rowFile(ROW_FILES.measurements.file, ROW_FILES.measurements.since, [
  ...ROW_FILES.measurements.columns,
  column('example_appended_per_req', KINDS.measured, NEXT, 'datagrams / request', 'UDP datagrams the proxy sent per request'),
])
const files = [grown, ...Object.values(ROW_FILES).filter((f) => f.file !== grown.file)]

test('one appended entry is a column everywhere: header, schema, row type, blank row, version, docs and dictionary', () => {
  const name = 'example_appended_per_req'
  assert.deepEqual(columnNames(grown), [...columnNames(ROW_FILES.measurements), name])
  // The row type has the field: a row with it compiles, one without it does not.
  const row: RowOf<typeof grown> = { ...measurement(), example_appended_per_req: 3.5 }
  // @ts-expect-error the appended column is a field of the row type
  const without: RowOf<typeof grown> = measurement()
  assert.equal(rowSchema(grown).parse(row).example_appended_per_req, 3.5)
  assert.equal(rowSchema(grown).safeParse(without).success, false)
  assert.equal(rowSchema(grown).safeParse({ ...row, example_appended_per_req: 'many' }).success, false)
  assert.equal(blankRow(grown).example_appended_per_req, null)
  assert.equal(latestVersion(files), NEXT)
  assert.deepEqual(
    versionHistory(files).filter((h) => h.version === NEXT),
    [{ version: NEXT, file: 'measurements.csv', newFile: false, columns: [name] }],
  )
  assert.ok(!requiredColumns(grown, SCHEMA_VERSION).includes(name) && requiredColumns(grown, NEXT).includes(name))
  assert.match(
    columnReference([grown]),
    new RegExp(`\\| \`${name}\` \\| datagrams / request \\| UDP datagrams the proxy sent per request \\| ${NEXT} \\| empty \\|`),
  )
  assert.match(schemaVersions(files), new RegExp(`\\| ${NEXT} \\| measurements\\.csv \\| \`${name}\` \\|`))
  const docs = rowColumnDocs(files)
  assert.deepEqual(docs[name], { unit: 'datagrams / request', meaning: 'UDP datagrams the proxy sent per request' })
  assert.deepEqual(rowFileDocs(files, docs)['measurements.csv'], undefined)
})

test('a file of the current version reads the appended column as its empty value; a file of the new version must have it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-columns-'))
  appendMeasurement(dir, measurement())
  const t = table<RowOf<typeof grown>>('measurements', grown, rowSchema(grown), CELL_COLUMNS.measurements)
  assert.equal(readTable(dir, t, SCHEMA_VERSION)[0]!.example_appended_per_req, null)
  assert.throws(
    () => readTable(dir, t, NEXT),
    (e: Error) =>
      e instanceof UserError &&
      e.message.includes(`measurements.csv:1: column "example_appended_per_req" missing from the header: every file of schema version ${NEXT} has it.`) &&
      !e.message.includes('\n'),
  )
})

test('the table refuses what the rule cannot read: a column appended without an empty value, a name twice, a version below 1, written and retired', () => {
  const bad = withRetired(
    rowFile('x.csv', 1, [
      column('a', KINDS.count, 1, '', ''),
      column('b', KINDS.count, 2, '', ''),
      column('a', KINDS.text, 1, '', ''),
      column('c', KINDS.text, 0, '', ''),
    ]),
    ['c', 'd'],
  )
  assert.deepEqual(tableProblems([bad]), [
    'x.csv: column b appeared after its file (version 2) but has no empty value for the files written before it',
    'x.csv: column a twice',
    'x.csv: column c since 0 (versions count from 1)',
    'x.csv: column c both written and retired',
  ])
  // A file that appears later may start with columns that have no empty value: no file of it lacks them.
  assert.deepEqual(tableProblems([rowFile('y.csv', 3, [column('a', KINDS.count, 1, '', ''), column('b', KINDS.count, 3, '', '')])]), [])
  assert.deepEqual(tableProblems(Object.values(ROW_FILES)), [])
})

test('a cell reads as its kind says: empty or absent as the empty value, numbers parsed, an empty required cell left for the schema to refuse', () => {
  const at = (name: string) => ROW_FILES.measurements.columns.find((c) => c.name === name)!
  assert.deepEqual([cellValue(at('path'), ''), cellValue(at('path'), undefined), cellValue(at('path'), '/json')], ['/', '/', '/json'])
  assert.deepEqual([cellValue(at('rps'), '12.5'), cellValue(at('rps'), ''), cellValue(at('rps'), undefined)], [12.5, null, null])
  assert.deepEqual([cellValue(at('scheme'), ''), cellValue(at('slo'), undefined), cellValue(at('invocation'), '3')], [undefined, '', 3])
  assert.deepEqual([cellValue(at('requests'), ''), cellValue(at('run_id'), '')], [null, ''])
  assert.equal(rowSchema(ROW_FILES.measurements).safeParse({ ...measurement(), requests: null }).success, false)
})
