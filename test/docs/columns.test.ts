import assert from 'node:assert/strict'
import { test } from 'node:test'
import { column, rowFile } from '../../lib/data/columns/column.ts'
import { KINDS, oneOf } from '../../lib/data/columns/kinds.ts'
import { columnReference, schemaVersions } from '../../lib/docs/columns.ts'

const first = rowFile('a.csv', 1, [
  column('run_id', KINDS.id, 1, '', 'the run'),
  column('path', KINDS.path, 2, '', 'a | path'),
  column('rate', KINDS.measured, 3, 'req/s', 'rate'),
])
const later = rowFile('b.csv', 2, [column('run_id', KINDS.id, 1, '', 'the run'), column('mode', oneOf(['x', 'y']), 2, '', 'x or y')])

test('the column reference gives each column its version in its file and what an empty cell reads as, pipes escaped', () => {
  assert.equal(
    columnReference([first, later]),
    [
      '### a.csv',
      '',
      '| column | unit | meaning | since | empty |',
      '|---|---|---|---|---|',
      '| `run_id` |  | the run | 1 | error |',
      '| `path` |  | a \\| path | 2 | `/` |',
      '| `rate` | req/s | rate | 3 | empty |',
      '',
      '### b.csv',
      '',
      '| column | unit | meaning | since | empty |',
      '|---|---|---|---|---|',
      '| `run_id` |  | the run | 2 | error |',
      '| `mode` |  | x or y | 2 | error |',
      '',
    ].join('\n'),
  )
})

test('each version lists the files it brought (their column count) and the columns it appended', () => {
  assert.equal(
    schemaVersions([first, later]),
    [
      '| version | file | added |',
      '|---|---|---|',
      '| 1 | a.csv | the file, 1 column (`run_id` … `run_id`) |',
      '| 2 | a.csv | `path` |',
      '| 2 | b.csv | the file, 2 columns (`run_id` … `mode`) |',
      '| 3 | a.csv | `rate` |',
      '',
    ].join('\n'),
  )
})
