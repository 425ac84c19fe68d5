import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { TABLE_SPECS } from '../../lib/analysis/cells.ts'
import { projectId } from '../../lib/data/grouping.ts'

const cellId = (spec: { keys: readonly string[] }, r: object) => projectId(r, spec.keys)
import { exec } from '../../lib/core/exec.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { readLike } from '../../lib/data/like.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import { SUMMARY_SCHEMA_FILE, type Summary } from '../../lib/report/summary-export.ts'

// A real smoke run, promoted to a baselines folder of this test's own, then repeated with
// --like: the new run measures every cell of the baseline again (issue 29 item 8). The --json document is the one a CI reads, checked by ajv against the
// published schema. Real proxies, native runtime; each run a minute or two on 2 cores.
const work = mkdtempSync(join(tmpdir(), 'pb-like-'))
const baselines = join(work, 'baselines')
const env = { PROXYBENCH_BASELINES_DIR: baselines }
after(() => rmSync(work, { recursive: true, force: true }))

const zx = (args: string[]) => exec('npx', ['zx', ...args], { cwd: repoRoot, env, timeoutMs: 600_000 })

test("--like a promoted smoke run: the same flags, every cell of the baseline measured again, and the JSON's pairs", async () => {
  const first = join(work, 'first')
  // Closed-model and handshake cells of several versions: every cell is fixed by the flags. (An
  // open-model cell's rate is a fraction of the run's own closed ceiling, so two runs may differ in it.)
  const made = await zx([
    'notebooks/run-all.mjs',
    '--profile',
    'smoke',
    '--series',
    'versions,resumption',
    '--proxies',
    'haproxy,nginx',
    '--runtime',
    'native',
    '--seed',
    '3',
    '--out',
    first,
    '--no-report',
  ])
  assert.equal(made.code, 0, (made.stderr + made.stdout).slice(-2000))
  const promoted = await zx(['notebooks/promote.mjs', first, '--id', 'like-src'])
  assert.equal(promoted.code, 0, promoted.stderr)
  assert.match(promoted.stdout, /promoted .* → .*like-src/)

  const second = join(work, 'second')
  const again = await zx(['notebooks/run-all.mjs', '--like', 'like-src', '--out', second, '--no-report', '--json'])
  assert.equal(again.code, 0, (again.stderr + again.stdout).slice(-2000))
  // The baseline's settings, repeated: its series, proxies, variants, profile and runtime, with nothing to note.
  const like = readLike(second)!
  assert.equal(like.baseline, 'like-src')
  assert.deepEqual(like.notes, [])
  const [base, run] = [loadRun(join(baselines, 'like-src')), loadRun(second)]
  assert.deepEqual(
    [run.manifest.profile, run.manifest.runtime, run.manifest.series, run.manifest.proxies],
    [base.manifest.profile, base.manifest.runtime, base.manifest.series, base.manifest.proxies],
  )

  // stdout is the one JSON document; the published schema, read by ajv, accepts it.
  const doc = JSON.parse(again.stdout) as Summary
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(SUMMARY_SCHEMA_FILE, 'utf8')))
  assert.ok(validate(doc), JSON.stringify(validate.errors))
  assert.equal(doc.baseline?.kind, 'run')
  assert.equal(doc.baseline?.id, 'like-src')
  // The same builds and configs as the baseline's are measured once, never paired with themselves:
  // nothing to compare, and the document says so with an empty list, not with across-run figures.
  assert.deepEqual(doc.pairs, [])

  // Every cell of the baseline (its key columns, the version included: --like repeats the versions) is measured again.
  const cellsOf = (rows: typeof base) =>
    new Set(
      (['measurements', 'handshakes', 'websocket'] as const).flatMap((t) =>
        (rows[t] as unknown as Record<string, unknown>[]).map((r) => `${t} ${cellId(TABLE_SPECS[t], r)}`),
      ),
    )
  const baseCells = cellsOf(base)
  assert.ok(baseCells.size >= 8, [...baseCells].join('\n'))
  assert.ok([...baseCells].some((c) => c.startsWith('handshakes ')) && [...baseCells].some((c) => c.startsWith('measurements ')))
  assert.ok(new Set(base.measurements.map((r) => r.version)).size >= 4, 'several versions of each proxy')
  assert.deepEqual(cellsOf(run), baseCells, "the run measured the baseline's cells")
})
