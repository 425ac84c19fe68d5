import assert from 'node:assert/strict'
import { test } from 'node:test'
import { likeBaseline, likeFlags, withLike } from '../../lib/cli/like.ts'
import { loadStack, type ProxyName, type Stack } from '../../lib/catalog/stack.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'

const ID = '2026-11-30-quick-2core'

test('--like on a committed baseline: its profile, series, proxies, runtime and measured versions become run flags', () => {
  const like = likeFlags(likeBaseline(ID))
  assert.equal(like.flags.profile, 'quick')
  assert.equal(like.flags.series, 'pooling,tls,ws,versions')
  assert.equal(like.flags.proxies, 'haproxy,nginx,envoy,traefik,caddy')
  assert.equal(like.flags.runtime, 'native')
  // quick's own repeats and connections: nothing to override; its window was 3 s then (2 s now): kept.
  assert.equal(like.flags.repeats, undefined)
  assert.equal(like.flags.duration, '3')
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
  assert.deepEqual(like.notes.filter((n) => n.startsWith('nginx')), ['nginx 1.22.1, 1.31.3 are no longer in the catalog: the newest, 1.33.0, measured instead'])
})

test('--like: an unknown id or a published baseline is one line naming the promoted runs', () => {
  assert.throws(() => likeBaseline('2025-01-01'), (e: Error) => e instanceof UserError && /^--like 2025-01-01: unknown baseline \(promoted runs: .*2026-11-30-quick-2core.*\)\. Use one of those/.test(e.message) && !e.message.includes('\n'))
  assert.throws(() => likeBaseline('2026-08-23'), (e: Error) => e instanceof UserError && /^--like 2026-08-23: a published baseline .* no run settings to repeat\. Use a promoted run: .*--baseline 2026-08-23$/.test(e.message))
})

test('--like: flags given beside it win, and the report compares with the baseline unless told otherwise', () => {
  type F = { like?: string; baseline?: string; series?: string; profile?: string; out?: string; proxies?: string }
  const log = memoryLogger()
  const { flags, like } = withLike<F>({ like: ID, profile: 'smoke', out: '/tmp/x' }, log)
  assert.equal(flags.profile, 'smoke')
  assert.equal(flags.proxies, 'haproxy,nginx,envoy,traefik,caddy')
  assert.equal(flags.baseline, ID)
  assert.equal(like?.id, ID)
  assert.deepEqual(like?.notes, ['--profile smoke given beside --like (the baseline\'s: quick)'])
  assert.equal(withLike<F>({ like: ID, baseline: '2026-08-23' }, log).flags.baseline, '2026-08-23')
  // A single step keeps its own series.
  assert.equal(withLike<F>({ like: ID }, log, { fixedSeries: true }).flags.series, undefined)
  assert.deepEqual(withLike<F>({ profile: 'quick' }, log), { flags: { profile: 'quick' } })
  // Fewer proxies: only their versions travel.
  assert.equal((withLike<F>({ like: ID, proxies: 'nginx' }, log).flags as { versions?: string }).versions, '1.22.1,1.31.3')
})
