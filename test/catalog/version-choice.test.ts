import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadStack, type Stack, type StackVersion } from '../../lib/catalog/stack.ts'
import { changeVersions, chooseVersions, defaultVersionChoice, parseVersionChoice } from '../../lib/catalog/version-choice.ts'
import { UserError } from '../../lib/core/errors.ts'

const v = (version: string, april_2025 = false) => ({ version, april_2025 }) as StackVersion
// Listed out of order on purpose: choices sort by version.
const stack = { versions: [v('3.7.15'), v('3.0.4'), v('3.3.5', true), v('3.4.3'), v('3.6.15')] }
const names = (c: Parameters<typeof chooseVersions>[1]) => chooseVersions(stack, c).map((x) => x.version)

test('all keeps every version oldest first; newest the newest; ends the oldest, the newest and the April 2025 ones', () => {
  assert.deepEqual(names({ kind: 'all' }), ['3.0.4', '3.3.5', '3.4.3', '3.6.15', '3.7.15'])
  assert.deepEqual(names({ kind: 'newest' }), ['3.7.15'])
  assert.deepEqual(names({ kind: 'ends' }), ['3.0.4', '3.3.5', '3.7.15'])
  assert.deepEqual(names({ kind: 'list', versions: ['3.6.15', '1.26.3'] }), ['3.6.15'])
})

test('quick and smoke default to the ends, standard and full to all', () => {
  assert.deepEqual(defaultVersionChoice('quick'), { kind: 'ends' })
  assert.deepEqual(defaultVersionChoice('smoke'), { kind: 'ends' })
  assert.deepEqual(defaultVersionChoice('standard'), { kind: 'all' })
  assert.deepEqual(defaultVersionChoice('full'), { kind: 'all' })
})

test('--versions reads the names and a list of catalog versions; an unknown version is a one-line error listing them', () => {
  const stacks = () => stack
  assert.deepEqual(parseVersionChoice('newest', ['traefik'], stacks), { kind: 'newest' })
  assert.deepEqual(parseVersionChoice(' 3.0.4, 3.6.15 ', ['traefik'], stacks), { kind: 'list', versions: ['3.0.4', '3.6.15'] })
  assert.throws(
    () => parseVersionChoice('3.1.0', ['traefik'], stacks),
    (e: unknown) => e instanceof UserError && /--versions/.test(e.message) && /traefik 3\.0\.4/.test(e.message) && !e.message.includes('\n'),
  )
  assert.throws(() => parseVersionChoice(',', ['traefik'], stacks), UserError)
})

test('changeVersions: either side of each reuse "from X" and since X, oldest first, each once; none without a change', () => {
  const variants = (vs: Record<string, { reuse: string; since?: string }>) => vs as unknown as Stack['variants']
  const names = (vs: Parameters<typeof variants>[0]) => changeVersions({ versions: stack.versions, variants: variants(vs) }).map((x) => x.version)
  assert.deepEqual(names({ a: { reuse: 'always' }, b: { reuse: 'never' } }), [])
  assert.deepEqual(names({ a: { reuse: 'from 3.4.0' } }), ['3.3.5', '3.4.3'])
  // A change at a catalog version: that one and the one before; two changes at the same place: the pair once.
  assert.deepEqual(names({ a: { reuse: 'from 3.6.15' }, b: { reuse: 'always', since: '3.6.15' } }), ['3.4.3', '3.6.15'])
  // Before the oldest, or after the newest: only the side that exists.
  assert.deepEqual(names({ a: { reuse: 'from 1.0.0' }, b: { reuse: 'always', since: '9.0.0' } }), ['3.0.4', '3.7.15'])
  // The catalog: nginx's h2 and h3 exist from 1.25.1, its named upstream pools from 1.29.7 on.
  assert.deepEqual(
    changeVersions(loadStack('nginx')).map((x) => x.version),
    ['1.22.1', '1.26.3', '1.30.6'],
  )
})
