import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { CHECK_KINDS } from '../../lib/claims/checks/index.ts'
import { loadLedger, PUBLISHED_DIR } from '../../lib/claims/ledger.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { claimOf, writeLedger } from '../fixtures/ledger.ts'

const CHECKS_DIR = join(repoRoot, 'lib/claims/checks')
/** The interface and the registry; every other file is one kind. */
const NOT_KINDS = ['check.ts', 'index.ts']
/** Loading a ledger of one claim with this check. */
const load = (check: Record<string, unknown>) => () => loadLedger(writeLedger([claimOf(check)]))

test('every file of lib/claims/checks/ is one registered kind, and every registered kind has its file', () => {
  const files = readdirSync(CHECKS_DIR)
    .filter((f) => f.endsWith('.ts') && !NOT_KINDS.includes(f))
    .sort()
  assert.deepEqual(files, CHECK_KINDS.map((k) => `${k.replace(/_/g, '-')}.ts`).sort())
})

test('the header of claims.yaml lists every registered kind, and no other', () => {
  const header = readFileSync(join(PUBLISHED_DIR, 'claims.yaml'), 'utf8').split('\n')
  const at = header.findIndex((l) => /^#\s+kind\s/.test(l))
  // "#   kind          ratio | equal | ... |" and its continuation line, up to "(below)".
  const text = header
    .slice(at, at + 2)
    .join(' ')
    .replace(/#/g, ' ')
    .replace(/^\s*kind\s+/, '')
    .replace(/\(below\).*$/, '')
  const listed = text
    .split('|')
    .map((s) => s.trim())
    .filter(Boolean)
  assert.deepEqual([...listed].sort(), [...CHECK_KINDS].sort())
})

test('the published ledger uses only registered kinds', () => {
  const used = new Set(loadLedger().claims.map((c) => c.check.kind))
  for (const k of used) assert.ok(CHECK_KINDS.includes(k), k)
})

test('an unknown kind names every registered one in the error', () => {
  assert.throws(load({ kind: 'ratios', metric: 'rps' }), (e: Error) => CHECK_KINDS.every((k) => e.message.includes(`'${k}'`)))
})

test('a kind that reads its own input refuses select, for_each and metric, in its own words', () => {
  const bisect = { kind: 'bisect', proxy: 'nginx', variant: 'literal', change: '1.29.7' }
  assert.throws(load({ ...bisect, metric: 'rps' }), /check\.metric: a bisect check reads the run's bisect of nginx literal, not metric/)
  const served = { kind: 'served_key', proxy: 'nginx', want: 'ec256' }
  assert.throws(
    load({ ...served, select: { series: 'same' } }),
    /check\.select: a served_key check reads nginx's served certificate rows of default-keys\.csv, not select/,
  )
  assert.throws(load({ ...served, want: 's000-no-such-figure' }), /check\.want: unknown figure id "s000-no-such-figure"/)
  // Only a binary whose --help states an ACME default has one to read.
  assert.throws(load({ ...served, source: 'acme default' }), /check\.source: only traefik states an ACME default key type in its --help, not nginx/)
  assert.throws(load({ ...served, source: 'acme' }), /check\.source/)
})

test('a and b inside a for_each item only for the kinds that pair sides; a constant side only for ratio and equal', () => {
  const item = [{ series: 'same', a: { proxy: 'nginx' } }]
  const same = { metric: 'rps', select: { series: 'same' } }
  assert.throws(
    load({ kind: 'spread', ...same, for_each: item, max: 1 }),
    /check\.for_each\.0: a and b inside a for_each item are for ratio, equal and contrast checks/,
  )
  assert.doesNotThrow(load({ kind: 'ratio', ...same, for_each: item, a: { variant: 'article' }, b: { value: 2 }, min: 1 }))
  assert.throws(
    load({ kind: 'contrast', ...same, a: { proxy: 'nginx' }, b: { value: 2 }, max: 1 }),
    /check\.b\.value: a constant side \(value\) is for a or b of ratio and equal checks/,
  )
})

test('contrast without its own spread needs the series from select or every item', () => {
  assert.throws(
    load({ kind: 'contrast', metric: 'rps', a: { series: 'pool-removed' }, b: { series: 'pool-added' }, max: 0.1 }),
    /check\.spread: no series for the spread/,
  )
})
