import assert from 'node:assert/strict'
import { test } from 'node:test'
import { likeBaseline, likeFlags, withLike } from '../../lib/cli/like.ts'
import { loadStack, newestVersion, type ProxyName, type Stack } from '../../lib/catalog/stack.ts'
import { getProfile } from '../../lib/catalog/profiles.ts'
import { parsePinnedVersions } from '../../lib/catalog/version-choice.ts'
import { parseRunOptions, type RunFlags } from '../../lib/cli/run-options.ts'
import { SERIES_BUILDERS } from '../../lib/series/index.ts'
import type { SeriesContext } from '../../lib/series/types.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'

const ID = '2026-11-30-quick-2core'

test('--like on a committed baseline: its profile, series, proxies, runtime and measured versions become run flags', () => {
  const like = likeFlags(likeBaseline(ID))
  assert.equal(like.flags.profile, 'quick')
  assert.equal(like.flags.series, 'pooling,tls,ws,versions')
  assert.equal(like.flags.proxies, 'haproxy,nginx,envoy,traefik,caddy')
  assert.equal(like.flags.runtime, 'native')
  // Its window was 3 s then; quick's paired rounds measure the pairs now (the test below).
  assert.equal(like.flags.repeats, undefined)
  assert.equal(like.flags.duration, undefined)
  assert.equal(like.connections, undefined)
  const versions = like.flags.versions!.split(',')
  for (const v of ['2.6.12', '2.8.25', '1.22.1', '1.31.3']) assert.ok(versions.includes(v), `${v} in ${like.flags.versions}`)
})

test('--like: a version gone from the catalog is replaced by the newest, and said so', () => {
  // A catalog a year later: nginx 1.22.1 and 1.31.3 gone, 1.33.0 in; HAProxy unchanged.
  const later = (p: ProxyName): Stack => {
    const s = loadStack(p)
    if (p !== 'nginx') return s
    const v = s.versions[0]!
    return { ...s, versions: [{ ...v, version: '1.33.0' }] }
  }
  const like = likeFlags(likeBaseline(ID), later)
  const versions = like.flags.versions!.split(',')
  assert.ok(versions.includes('1.33.0') && !versions.includes('1.22.1') && !versions.includes('1.31.3'), like.flags.versions)
  assert.ok(versions.includes('2.6.12'))
  assert.deepEqual(
    like.notes.filter((n) => n.startsWith('nginx')),
    ['nginx 1.22.1, 1.31.3 are no longer in the catalog: the newest, 1.33.0, measured instead'],
  )
})

test('--like: an unknown id or a published baseline is one line naming the promoted runs', () => {
  assert.throws(
    () => likeBaseline('2025-01-01'),
    (e: Error) =>
      e instanceof UserError &&
      /^--like 2025-01-01: unknown baseline \(promoted runs: .*2026-11-30-quick-2core.*\)\. Use one of those/.test(e.message) &&
      !e.message.includes('\n'),
  )
  assert.throws(
    () => likeBaseline('2026-08-23'),
    (e: Error) =>
      e instanceof UserError &&
      /^--like 2026-08-23: a published baseline .* no run settings to repeat\. Use a promoted run: .*--baseline 2026-08-23$/.test(e.message),
  )
})

test('--like: flags given beside it win, and the report compares with the baseline unless told otherwise', () => {
  type F = { like?: string; baseline?: string; series?: string; profile?: string; out?: string; proxies?: string }
  const log = memoryLogger()
  const { flags, like } = withLike<F>({ like: ID, profile: 'smoke', out: '/tmp/x' }, log)
  assert.equal(flags.profile, 'smoke')
  assert.equal(flags.proxies, 'haproxy,nginx,envoy,traefik,caddy')
  assert.equal(flags.baseline, ID)
  assert.equal(like?.id, ID)
  assert.deepEqual(like?.notes, ["--profile smoke given beside --like (the baseline's: quick)"])
  assert.equal(withLike<F>({ like: ID, baseline: '2026-08-23' }, log).flags.baseline, '2026-08-23')
  // A single step keeps its own series.
  assert.equal(withLike<F>({ like: ID }, log, { fixedSeries: true }).flags.series, undefined)
  assert.deepEqual(withLike<F>({ profile: 'quick' }, log), { flags: { profile: 'quick' } })
  // Fewer proxies: only their versions travel.
  assert.equal((withLike<F>({ like: ID, proxies: 'nginx' }, log).flags as { versions?: string }).versions, '1.22.1,1.31.3')
})

test("--like: every series measures the baseline's versions: a series of several versions as they were, a one-version series as then beside today's now", () => {
  const log = memoryLogger()
  const base = likeBaseline(ID)
  const { flags, like } = withLike<RunFlags & { like?: string; baseline?: string }>({ like: ID }, log)
  assert.equal(flags['pin-versions'], undefined)
  assert.deepEqual(like!.then, { haproxy: '2.8.25', nginx: '1.31.3', envoy: '1.40.0', traefik: '3.7.15', caddy: '2.11.7' })
  // The then side as lib/run/then.ts resolves it, each proxy's baseline version on a build of its own.
  const pairing = (o: ReturnType<typeof parseRunOptions>) => ({
    baseline: ID,
    sides: new Map(
      o.proxies.map((p) => {
        const stack = loadStack(p)
        const now = newestVersion(stack).version
        const version = like!.then[p]!
        const side = { proxy: p, version, baseline_sha256: null, sha256: null, how: 'catalog' as const, note: '', now_version: now, configs: 'today' as const }
        return [p, { side, stackVersion: stack.versions.find((v) => v.version === version)!, templates: null, build: { binary: '/b', env: {}, launcher: [] } }]
      }),
    ),
  })
  const planned = (f: RunFlags, paired: boolean) => {
    const o = parseRunOptions(f, { install: false, log })
    // The baseline's own directory: the open-model phases take their rates from its closed rows.
    const ctx = {
      log,
      proxies: o.proxies,
      seed: 1,
      connections: o.profile.connections,
      backendVersion: 'b',
      profile: o.profile,
      runDir: base.dir,
      plan: o.plan,
      runtime: { kind: 'native' },
      templateChecks: new Map(),
      ...(paired ? { pairing: pairing(o) } : {}),
    } as unknown as SeriesContext
    const out = new Map<string, Set<string>>()
    for (const s of o.series) {
      for (const phase of SERIES_BUILDERS[s]().phases) {
        for (const t of phase.tasks(ctx)) {
          const c = t.subject
          if (!c || c.proxy === 'direct') continue
          const k = `${c.series} ${c.proxy}`
          out.set(k, (out.get(k) ?? new Set()).add(c.version))
        }
      }
    }
    return out
  }
  const plan = planned(flags, true)
  const had = new Map<string, Set<string>>()
  for (const r of [...base.measurements, ...base.handshakes, ...base.websocket]) {
    if (r.proxy === 'direct') continue
    const k = `${r.series} ${r.proxy}`
    had.set(k, (had.get(k) ?? new Set()).add(r.version))
  }
  assert.ok(had.size > 30)
  for (const [k, versions] of had) for (const v of versions) assert.ok(plan.get(k)?.has(v), `${k} ${v}`)
  // HAProxy 2.8.25 (then) beside today's newest (now) in the pooling and TLS cells.
  const newest = newestVersion(loadStack('haproxy')).version
  assert.notEqual(newest, '2.8.25', 'the catalog has moved on since the baseline')
  assert.deepEqual([...plan.get('pool-added haproxy')!].sort(), ['2.8.25', newest].sort())
  assert.deepEqual([...plan.get('tls-handshake haproxy')!].sort(), ['2.8.25', newest].sort())
  assert.deepEqual([...planned({ profile: 'quick', series: 'pooling,tls' }, false).get('pool-added haproxy')!], [newest])
})

test('--pin-versions: a proxy or version not in the catalog is one line naming the known ones', () => {
  assert.deepEqual(parsePinnedVersions('haproxy=2.8.25, nginx=1.31.3'), { haproxy: '2.8.25', nginx: '1.31.3' })
  assert.throws(
    () => parsePinnedVersions('haproxy=9.9'),
    (e: Error) =>
      e instanceof UserError && /^--pin-versions: haproxy has no catalog version "9\.9"\. Use one of: .*2\.8\.25/.test(e.message) && !e.message.includes('\n'),
  )
  assert.throws(() => parsePinnedVersions('squid=1'), /unknown proxy "squid"\. Use one of: haproxy/)
  assert.throws(() => parsePinnedVersions('haproxy'), /cannot read "haproxy"\. Write proxy=version pairs/)
})

test("--like: the profile's paired rounds (more, shorter windows); --repeats and --duration still win", () => {
  const log = memoryLogger()
  const { flags } = withLike<RunFlags>({ like: ID, out: '/tmp/x' }, log)
  const quick = getProfile('quick')
  const paired = parseRunOptions(flags, { install: false, log }).profile
  assert.deepEqual([paired.repeats, paired.durationS], [quick.paired!.repeats, quick.paired!.durationS])
  const unpaired = parseRunOptions({ profile: 'quick' } as RunFlags, { install: false, log }).profile
  assert.deepEqual([unpaired.repeats, unpaired.durationS], [quick.repeats, quick.durationS])
  const given = parseRunOptions({ ...flags, repeats: '3', duration: '4' }, { install: false, log }).profile
  assert.deepEqual([given.repeats, given.durationS], [3, 4])
})
