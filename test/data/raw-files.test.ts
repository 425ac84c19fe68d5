import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { PROFILES, type Profile } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { cellStem, configCopy, parseRawName, rawFile, repeatStem, safeVariant, RAW_KINDS, type RawCell, type RawPart } from '../../lib/data/raw-files.ts'
import { appendRow, MEASUREMENTS } from '../../lib/data/tables.ts'
import { SERIES_BUILDERS } from '../../lib/series/index.ts'
import type { Series, SeriesContext, Task } from '../../lib/series/types.ts'
import { KEY_TYPES } from '../../lib/setup/certs.ts'
import { measurement } from '../fixtures/rows.ts'

const cell = { series: 'tls-open', proxy: 'haproxy', version: '2.8.25', variant: 'pool-added', keyType: 'rsa4096', connections: 1000 }

test('raw file names round-trip for every kind, with the rate or WebSocket mode', () => {
  assert.equal(rawFile('/r', repeatStem(cell, 2, { rate: 700 }), 'open.json'), '/r/raw/tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-700rps-r2.open.json')
  assert.deepEqual(parseRawName('tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-700rps-r2.open.json'), {
    ...cell,
    rate: 700,
    mode: null,
    repeat: 2,
    kind: 'open.json',
  })
  const ws = { ...cell, series: 'ws-hold', proxy: 'envoy', version: '1.40.0', variant: 'ws-raised', keyType: 'ec256', connections: 1500 }
  assert.deepEqual(parseRawName(`${repeatStem(ws, 1, { mode: 'hold' })}.ws-hold.json`), { ...ws, rate: null, mode: 'hold', repeat: 1, kind: 'ws-hold.json' })
  const direct = { series: 'direct', proxy: 'direct', version: 'ce391f9ff9ea99eb', variant: 'direct', keyType: 'ec256', connections: 200 }
  assert.deepEqual(parseRawName(`${repeatStem(direct, 3)}.wrk.txt`), { ...direct, rate: null, mode: null, repeat: 3, kind: 'wrk.txt' })
  // A repeat's latency spectrum sits beside its generator output under the same stem.
  assert.deepEqual(parseRawName(`${repeatStem(cell, 2, { rate: 700 })}.latency.json`), { ...cell, rate: 700, mode: null, repeat: 2, kind: 'latency.json' })
})

test("a user config's file name is made safe in raw and config names", () => {
  const custom = { ...cell, series: 'custom', variant: 'custom:my conf;1.cfg' }
  assert.equal(cellStem(custom), 'custom-haproxy-2.8.25-custom_my_conf_1.cfg-rsa4096-c1000')
  assert.equal(configCopy('/r', custom, 'cfg'), '/r/configs/haproxy-2.8.25-custom_my_conf_1.cfg.cfg')
})

test('other files are not raw outputs', () => {
  for (const f of ['notes.txt', 'tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-r1.json', 'x-apache-1-article-ec256-c1-r1.wrk.txt'])
    assert.equal(parseRawName(f), null, f)
})

type PlanProfile = Profile & { connections: number }
type PlannedCell = NonNullable<Task['subject']>

/** The context a series plans its phases in, for one profile, with rows going to `runDir`. */
const planContext = (profile: PlanProfile, runDir: string) =>
  ({
    log: memoryLogger(),
    proxies: PROXIES,
    seed: 1,
    connections: profile.connections,
    backendVersion: 'ce391f9ff9ea99eb',
    profile,
    runDir,
    runId: 't',
    plan: { custom: [] },
  }) as unknown as SeriesContext

/** What a raw file name of the cell must parse back to, besides its rate, mode, repeat and kind. */
const rawCellOf = (c: PlannedCell): RawCell => ({
  series: c.series,
  proxy: c.proxy,
  version: c.version,
  variant: safeVariant(c.variant),
  keyType: c.keyType,
  connections: c.connections,
  ...(c.bodyBytes ? { bodyBytes: c.bodyBytes } : {}),
  ...(c.streams ? { streams: c.streams } : {}),
  ...(c.resumption ? { resumption: c.resumption } : {}),
})

/** Every raw file name of a repeat (with a rate, each WebSocket mode, or neither; every kind) parses back to it. */
function assertRawNamesParse(c: PlannedCell, repeat: number, where: string): void {
  const want = rawCellOf(c)
  for (const part of [{}, { rate: 700 }, { mode: 'echo' }, { mode: 'hold' }] as RawPart[]) {
    for (const kind of RAW_KINDS) {
      const file: string = `${repeatStem(c, repeat, part)}.${kind}`
      const rate = 'rate' in part ? part.rate : null
      const mode = 'mode' in part ? part.mode : null
      assert.deepEqual(parseRawName(file), { ...want, rate, mode, repeat, kind }, `${where}: ${file}`)
    }
  }
}

/** Rows for the phases that read earlier ones (open-model rates from closed ceilings): one per closed cell. */
function appendCeilingRows(runDir: string, tasks: readonly Task[]): void {
  for (const t of tasks)
    if (t.subject && t.table === MEASUREMENTS && t.repeat === 1)
      appendRow(
        runDir,
        MEASUREMENTS,
        measurement({
          series: t.subject.series,
          proxy: t.subject.proxy,
          version: t.subject.version,
          variant: t.subject.variant,
          key_type: t.subject.keyType,
          connections: t.subject.connections,
          repeat: t.repeat,
          rps: 20_000,
          streams: t.subject.streams ?? null,
        }),
      )
}

/**
 * Plans every phase of one series under one profile and checks the raw names of each repeat
 * not checked yet; `seen` collects the phases and kinds of cell the plans reached.
 */
function checkSeriesPlan(profile: PlanProfile, name: string, build: () => Series, seen: Set<string>, checked: Set<string>): void {
  const runDir = mkdtempSync(join(tmpdir(), 'pb-raw-names-'))
  try {
    const ctx = planContext(profile, runDir)
    for (const phase of build().phases) {
      const tasks = phase.tasks(ctx)
      for (const t of tasks) {
        const c = t.subject
        if (!c) continue
        seen.add(phase.name)
        seen.add(`${c.series}${c.streams ? ' m' : ''}${c.resumption ? ' resume' : ''}${c.bodyBytes ? ' json' : ''}`)
        if (checked.has(repeatStem(c, t.repeat))) continue
        checked.add(repeatStem(c, t.repeat))
        assertRawNamesParse(c, t.repeat, `${profile.name} ${name} ${phase.name}`)
      }
      appendCeilingRows(runDir, tasks)
    }
  } finally {
    rmSync(runDir, { recursive: true, force: true })
  }
}

// Every cell the series plan, under every profile: its raw files must parse back to it, or the
// latency spectra and open-model pages silently lose it (issue 29 item 7).
test('every planned cell of every series and profile: its raw file name of every kind parses back to the cell', () => {
  const seen = new Set<string>()
  const checked = new Set<string>()
  for (const profile of Object.values(PROFILES)) {
    for (const [name, build] of Object.entries(SERIES_BUILDERS)) checkSeriesPlan(profile, name, build, seen, checked)
  }
  // The plans did reach the cells whose stems carry streams, resumption offers and body sizes, and the open phases.
  for (const s of ['h2 m', 'h2-h1', 'resumption resume', 'scenarios json', 'tls-open', 'tls-calibration', 'pooling-open', 'ws-hold', 'bisect', 'capacity'])
    assert.ok(
      [...seen].some((x) => x.startsWith(s)),
      `${s} among ${[...seen].sort().join(', ')}`,
    )
})

test('the raw name rule knows every proxy and key type, and every raw kind the measuring code writes', () => {
  for (const p of [...PROXIES, 'direct']) assert.ok(parseRawName(`${repeatStem({ ...cell, proxy: p }, 1)}.wrk.txt`), p)
  for (const k of KEY_TYPES) assert.ok(parseRawName(`${repeatStem({ ...cell, keyType: k }, 1)}.wrk.txt`), k)
  // Each kind named anywhere in lib/ (rawFile(…, '<kind>') and the generators' raw: fields) is in RAW_KINDS.
  const written = new Set<string>()
  for (const f of readdirSync(join(repoRoot, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(repoRoot, 'lib', f), 'utf8')
    for (const m of text.matchAll(/rawFile\([^)]*'([a-z0-9.-]+)'\)|raw: '([a-z0-9.-]+)'/g)) written.add(m[1] ?? m[2]!)
  }
  assert.ok(written.size >= 6, [...written].join(', '))
  for (const k of written) assert.ok((RAW_KINDS as readonly string[]).includes(k), `${k} is written but not in RAW_KINDS`)
})
