import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compareParsed, orderVersions, parseVersion } from '../../lib/catalog/version-order.ts'

const cmp = (a: string, b: string) => compareParsed(parseVersion(a)!, parseVersion(b)!)

test('semver order: numbers compare as numbers, a pre-release before its release, a Debian revision after the core', () => {
  assert.equal(cmp('1.9.0', '1.10.0'), -1)
  assert.equal(cmp('v1.34.0', '1.34.0'), 0)
  assert.equal(cmp('2.10.0-beta.3', '2.10.0'), -1)
  assert.equal(cmp('2.10.0-beta.3', '2.10.0-beta.10'), -1)
  assert.equal(cmp('2.10.0-beta.3', '2.10.0-rc.1'), -1)
  assert.equal(cmp('3.0.11-1', '3.0.11-2+deb13u1'), -1)
  assert.equal(cmp('1.2.3+ds1', '1.2.3'), 0)
  assert.equal(cmp('1.29.7', '1.29.6'), 1)
})

test('odd tags: words are no version, flavours and pre-releases are told apart', () => {
  assert.equal(parseVersion('latest'), null)
  assert.equal(parseVersion('mainline-alpine'), null)
  assert.equal(parseVersion('1.29.7-alpine')!.flavour, 'alpine')
  assert.deepEqual(parseVersion('1.29.7rc1')!.pre, ['rc', 1])
  assert.equal(parseVersion('1.2.3abc'), null)
  assert.deepEqual(parseVersion('v3.3.5')!.core, [3, 3, 5])
})

test('orderVersions: a registry listing becomes each release once, oldest first, with what was left out and why', () => {
  const tags = ['latest', '1.29', '1.31.3', '1.29.7-alpine', '1.22.1', '1.30.0-rc1', 'v1.26.3', '1.26.3', 'mainline', '1.29.10', '1.29.7', '1']
  const { versions, skipped } = orderVersions(tags)
  assert.deepEqual(versions, ['1.22.1', 'v1.26.3', '1.29.7', '1.29.10', '1.31.3'])
  const why = Object.fromEntries(skipped.map((s) => [s.tag, s.why]))
  assert.equal(why.latest, 'not a version')
  assert.equal(why['1.29'], 'an alias of the newest patch release')
  assert.equal(why['1.29.7-alpine'], 'flavour alpine')
  assert.equal(why['1.30.0-rc1'], 'a pre-release')
  assert.equal(why['1.26.3'], 'the same release as v1.26.3')
  assert.equal(skipped.length, tags.length - versions.length)
  assert.deepEqual(orderVersions(tags, { flavour: 'alpine' }).versions, ['1.29.7-alpine'])
  assert.deepEqual(orderVersions(tags, { prereleases: true }).versions, ['1.22.1', 'v1.26.3', '1.29.7', '1.29.10', '1.30.0-rc1', '1.31.3'])
})
