import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseLoadModelOptions } from '../../lib/cli/load-model-options.ts'

const runDir = () => {
  const d = join(mkdtempSync(join(tmpdir(), 'pb-lm-')), 'run')
  mkdirSync(d)
  writeFileSync(join(d, 'measurements.csv'), '')
  return d
}

test('run directories, or --measure with its defaults', () => {
  const d = runDir()
  assert.deepEqual(parseLoadModelOptions({ _: [d] }), { dirs: [d], run: null })
  assert.deepEqual(parseLoadModelOptions({ _: [], measure: true }), {
    dirs: [],
    run: { profile: 'quick', proxies: ['haproxy', 'nginx', 'caddy'], seed: undefined, out: undefined },
  })
  assert.deepEqual(parseLoadModelOptions({ _: [], measure: true, profile: 'standard', proxies: 'nginx', seed: '4' }).run, {
    profile: 'standard',
    proxies: ['nginx'],
    seed: '4',
    out: undefined,
  })
})

test('one-line errors: nothing to read, run flags without --measure, not a run directory, a bad seed or profile', () => {
  assert.throws(() => parseLoadModelOptions({ _: [] }), /no run directory given/)
  assert.throws(() => parseLoadModelOptions({ _: [runDir()], proxies: 'nginx' }), /--proxies only goes with --measure/)
  assert.throws(() => parseLoadModelOptions({ _: [tmpdir()] }), /no measurements.csv here/)
  assert.throws(() => parseLoadModelOptions({ _: [], measure: true, seed: 'x' }), /not a non-negative integer/)
  assert.throws(() => parseLoadModelOptions({ _: [], measure: true, profile: 'huge' }), /unknown profile/)
  assert.throws(() => parseLoadModelOptions({ _: [], measure: true, proxies: 'apache' }))
})
