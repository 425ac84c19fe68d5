import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { LATENCY_FORMAT, loadgenSpectrum, readLatencySpectra, readLatencySpectrum, writeLatencySpectrum, type LatencySpectrum } from '../../lib/data/latency.ts'
import { rawFile, repeatStem } from '../../lib/data/raw-files.ts'

const cell = { series: 'pooling', proxy: 'haproxy', version: '2.6.12', variant: 'article', keyType: 'ec256', connections: 200 }

// The shape `loadgen open` prints, a few rows; the hdr string is only carried here (the Go test decodes it).
const fromGo = loadgenSpectrum('open', {
  total_count: 4000,
  max_us: 18431,
  points: [
    { percentile: 0, value_us: 212, count: 1 },
    { percentile: 50, value_us: 655, count: 2003 },
    { percentile: 99.90234375, value_us: 9871, count: 3997 },
    { percentile: 100, value_us: 18431, count: 4000 },
  ],
  hdr: 'HISTFAAAACl4nJNpmSzMwMDAxgABMJoRTM6uMr8j5M/0hNlMw5Ppx2oHBgYmBQCxwQXu',
})

function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-latency-'))
  mkdirSync(join(dir, 'raw'))
  return dir
}

test('a spectrum round-trips through its raw file, found by cell and repeat', () => {
  const dir = runDir()
  const stem = repeatStem({ ...cell, series: 'pooling-open' }, 2, { rate: 900 })
  const file = writeLatencySpectrum(dir, stem, fromGo)
  assert.equal(file, rawFile(dir, stem, 'latency.json'))
  assert.deepEqual(readLatencySpectrum(file), fromGo)
  assert.equal(fromGo.measured_from, 'scheduled')
  assert.equal(loadgenSpectrum('handshake', { total_count: 0, max_us: 0, points: [], hdr: '' }).measured_from, 'sent')
  writeFileSync(join(dir, 'raw', `${repeatStem(cell, 1)}.wrk.txt`), 'not a spectrum')
  const found = readLatencySpectra(dir)
  assert.equal(found.length, 1)
  assert.deepEqual(found[0]!.cell, { ...cell, series: 'pooling-open', rate: 900, mode: null, repeat: 2, kind: 'latency.json' })
})

test('a run without raw/ (older runs, promoted baselines) has no spectra', () => {
  assert.deepEqual(readLatencySpectra(mkdtempSync(join(tmpdir(), 'pb-latency-'))), [])
})

test('a malformed spectrum file is one line naming the file', () => {
  const dir = runDir()
  const file = rawFile(dir, repeatStem(cell, 1), 'latency.json')
  const bad: [string, RegExp][] = [
    ['{"format": ', /not valid JSON/],
    [JSON.stringify({ ...fromGo, format: 'other/2' }), /format: Invalid literal value/],
    [JSON.stringify({ ...fromGo, points: [fromGo.points[1], fromGo.points[0]] }), /points\.1: percentile, value_us and count must not decrease/],
    [JSON.stringify({ ...fromGo, points: [{ percentile: 120, value_us: 1, count: 1 }] }), /points\.0\.percentile/],
    [JSON.stringify({ ...fromGo, measured_from: 'whenever' }), /measured_from/],
  ]
  for (const [text, why] of bad) {
    writeFileSync(file, text)
    assert.throws(
      () => readLatencySpectrum(file),
      (e: Error) => {
        assert.ok(e instanceof UserError, e.message)
        assert.ok(e.message.startsWith(`${file}: `), e.message)
        assert.match(e.message, why)
        assert.doesNotMatch(e.message, /\n/)
        return true
      },
    )
    assert.throws(() => readLatencySpectra(dir), UserError)
  }
})

test('the writer refuses what the reader would refuse, and leaves no file', () => {
  const dir = runDir()
  const stem = repeatStem(cell, 1)
  assert.throws(() => writeLatencySpectrum(dir, stem, { ...fromGo, format: 'x' } as unknown as LatencySpectrum))
  assert.throws(() => readFileSync(rawFile(dir, stem, 'latency.json')), /ENOENT/)
  assert.equal(LATENCY_FORMAT, fromGo.format)
})
