import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { stacksDir } from '../../lib/core/paths.ts'
import { loadStack, newestVersion } from '../../lib/catalog/stack.ts'
import { catalogCellPlan, directCell } from '../../lib/measure/cell.ts'
import { closedTasks } from '../../lib/series/tasks.ts'
import { MULTI_VERSION_SERIES, type ThenPlan, type ThenProxy } from '../../lib/series/then.ts'
import type { PairAt } from '../../lib/series/plan.ts'
import type { SeriesContext } from '../../lib/series/types.ts'
import type { ThenSide } from '../../lib/data/then.ts'

const haproxy = loadStack('haproxy')
const now = newestVersion(haproxy)
const old = haproxy.versions.find((v) => v.version !== now.version)!

const side = (how: ThenSide['how'], templates: string | null = null): ThenProxy => ({
  side: {
    proxy: 'haproxy',
    version: old.version,
    baseline_sha256: old.sha256,
    sha256: old.sha256,
    how,
    note: `note ${how}`,
    now_version: now.version,
    configs: 'today',
  },
  stackVersion: old,
  templates,
  ...(how === 'not runnable' ? {} : { build: { binary: '/x/haproxy', env: {}, launcher: [] } }),
})

const ctx = (then: ThenPlan | undefined, kind = 'native', at?: PairAt) =>
  ({
    runDir: '/r',
    seed: 4,
    connections: 200,
    profile: { repeats: 3 },
    plan: { custom: [], ...(at ? { pair: { baseline: 'b', versions: {}, pairSame: false, at } } : {}) },
    runtime: { kind },
    ...(then ? { pairing: then } : {}),
  }) as unknown as SeriesContext

const cells = [
  directCell('abc', 200),
  ...(['article', 'pool-added'] as const).map((variant) =>
    catalogCellPlan(haproxy, { series: variant === 'article' ? 'same' : 'pool-added', variant, connections: 200 }),
  ),
]

test('every now cell of a proxy with a then side runs beside its twin in each round; its rows go to then/', () => {
  const tasks = closedTasks(cells, ctx({ baseline: 'b', sides: new Map([['haproxy', side('catalog')]]) }))
  assert.equal(tasks.length, 3 * 5)
  const twins = tasks.filter((t) => t.table.file === 'then/measurements.csv')
  assert.equal(twins.length, 3 * 2)
  for (const t of twins) {
    assert.match(t.key, /^then\|/)
    assert.equal(t.subject!.version, old.version)
    assert.equal(t.subject!.build!.binary, '/x/haproxy')
    assert.match(t.label, new RegExp(`· then ${old.version.replaceAll('.', '\\.')}$`))
  }
  // Next to its now cell in every round, in either order.
  for (let r = 1; r <= 3; r++) {
    const round = tasks.filter((t) => t.repeat === r).map((t) => `${t.table.file === 'measurements.csv' ? 'now' : 'then'} ${t.subject!.variant}`)
    for (const v of ['article', 'pool-added']) assert.equal(Math.abs(round.indexOf(`now ${v}`) - round.indexOf(`then ${v}`)), 1, round.join(', '))
  }
  // again() of a twin is a twin.
  assert.match(twins[0]!.again(9).key, /^then\|.*\|9$/)
  // Each side names its partner, so that an adaptive round re-measures both (lib/run/phase.ts pairedAgain).
  for (const t of twins) {
    const partner = tasks.find((x) => x.cellId === t.pairOf)!
    assert.equal(partner.subject!.variant, t.subject!.variant)
    assert.equal(partner.pairOf, t.cellId)
    assert.equal(t.again(9).pairOf, t.pairOf)
  }
  assert.equal(tasks.find((t) => t.subject!.proxy === 'direct')!.pairOf, undefined)
})

test('no twins: the same build measured once, or no --like; a then side that cannot run has twins that fail saying why', () => {
  assert.equal(closedTasks(cells, ctx({ baseline: 'b', sides: new Map([['haproxy', side('same build')]]) })).length, 3 * 3)
  assert.equal(closedTasks(cells, ctx(undefined)).length, 3 * 3)
  const gone = closedTasks(cells, ctx({ baseline: 'b', sides: new Map([['haproxy', side('not runnable')]]) })).filter((t) => t.key.startsWith('then|'))
  assert.equal(gone.length, 6)
  assert.ok(gone.every((t) => t.subject!.unrunnable === 'note not runnable'))
  const docker = closedTasks(cells, ctx({ baseline: 'b', sides: new Map([['haproxy', side('catalog')]]) }, 'docker')).filter((t) => t.key.startsWith('then|'))
  assert.ok(docker.every((t) => /native runtime only/.test(t.subject!.unrunnable ?? '')))
})

test('series of several versions are not paired: their versions are the comparison', () => {
  const versions = [catalogCellPlan(haproxy, { series: 'versions', variant: 'article', connections: 200 })]
  assert.ok(MULTI_VERSION_SERIES.has('versions'))
  assert.equal(closedTasks(versions, ctx({ baseline: 'b', sides: new Map([['haproxy', side('catalog')]]) })).length, 3)
})

test("the same build with a config that changed since the baseline: that cell is paired, with the baseline's config; the others are measured once", () => {
  const kept = mkdtempSync(join(tmpdir(), 'pb-then-'))
  for (const f of ['article.cfg', 'pool-added.cfg']) copyFileSync(join(stacksDir, 'haproxy', 'templates', f), join(kept, f))
  writeFileSync(join(kept, 'article.cfg'), `${readFileSync(join(kept, 'article.cfg'), 'utf8')}\n# then\n`)
  const tasks = closedTasks(cells, ctx({ baseline: 'b', sides: new Map([['haproxy', side('same build', kept)]]) }))
  const twins = tasks.filter((t) => t.key.startsWith('then|'))
  assert.deepEqual([...new Set(twins.map((t) => t.subject!.variant))], ['article'])
  assert.equal(twins.length, 3)
  assert.ok(twins.every((t) => t.subject!.template === join(kept, 'article.cfg')))
})

test('--pair-at instant: a wrk cell and its twin are one task per round, both rows of one window; h2 cells keep adjacent windows', () => {
  const sides = { baseline: 'b', sides: new Map([['haproxy', side('catalog')]]) }
  const h2 = { ...catalogCellPlan(haproxy, { series: 'h2', variant: 'article', connections: 200 }), streams: 10 }
  const tasks = closedTasks([...cells, h2], ctx(sides, 'native', 'instant'))
  // direct and the two wrk cells: one task a round each; the h2 cell and its twin: two.
  assert.equal(tasks.length, 3 * 3 + 3 * 2)
  const pairs = tasks.filter((t) => t.pair)
  assert.equal(pairs.length, 3 * 2)
  for (const t of pairs) {
    const then = t.pair!.side
    assert.equal(t.table.file, 'measurements.csv')
    assert.equal(then.table.file, 'then/measurements.csv')
    assert.equal(then.key, `then|${t.key}`.replace(now.version, old.version))
    assert.equal(then.repeat, t.repeat)
    assert.equal(t.pairOf, then.cellId)
    assert.equal(t.subject!.version, now.version)
    assert.equal(then.subject!.build!.binary, '/x/haproxy')
    assert.match(t.label, new RegExp(`\\+ then ${old.version.replaceAll('.', '\\.')}$`))
    // Made again for an adaptive round, it is the pair again, at the new repeat.
    const again = t.again(9)
    assert.deepEqual([again.repeat, again.pair!.side.repeat, again.pair!.side.cellId], [9, 9, then.cellId])
  }
  assert.deepEqual(
    tasks
      .filter((t) => t.subject!.streams)
      .map((t) => t.table.file)
      .sort(),
    [...Array(3).fill('measurements.csv'), ...Array(3).fill('then/measurements.csv')],
  )
  // Adjacent (the default, and --pair-at adjacent): two tasks a pair.
  assert.equal(closedTasks(cells, ctx(sides, 'native', 'adjacent')).length, 3 * 5)
})

test("a user's own config is paired with itself on the baseline's build, never with the kept template of the same name", () => {
  const kept = mkdtempSync(join(tmpdir(), 'pb-then-'))
  copyFileSync(join(stacksDir, 'haproxy', 'templates', 'article.cfg'), join(kept, 'article.cfg'))
  const mine = join(mkdtempSync(join(tmpdir(), 'pb-mine-')), 'article.cfg')
  writeFileSync(mine, `${readFileSync(join(kept, 'article.cfg'), 'utf8')}\n# mine\n`)
  const custom = {
    ...catalogCellPlan(haproxy, { series: 'custom', variant: 'article', connections: 200 }),
    variant: 'custom:article.cfg' as const,
    template: mine,
  }
  const twins = closedTasks([custom], ctx({ baseline: 'b', sides: new Map([['haproxy', side('catalog', kept)]]) })).filter((t) => t.key.startsWith('then|'))
  assert.equal(twins.length, 3)
  assert.ok(twins.every((t) => t.subject!.template === mine && t.subject!.version === old.version))
  // The same build: the user's config is the same file on both sides, measured once.
  assert.equal(closedTasks([custom], ctx({ baseline: 'b', sides: new Map([['haproxy', side('same build', kept)]]) })).length, 3)
})
