import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadBaseline } from '../../../lib/data/baselines.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import type { Fingerprint } from '../../../lib/data/schema.ts'
import { compareWithBaseline } from '../../../lib/report/build.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { baselineSection } from '../../../lib/report/sections/baseline.ts'
import { changesFromDeltas } from '../../../lib/report/baseline-changes.ts'
import { writeLike } from '../../../lib/data/like.ts'
import { copyFixtureRun } from '../../fixtures/run.ts'

const FP: Fingerprint = {
  cpu_model: 'AMD EPYC', cpu_family: '26', cpu_model_number: '2', stepping: '1', microcode: '0x1000065', kernel_release: '6.18.44-fc-v657',
  kernel_version: 'Linux version 6.18.44-fc-v657 #1', vulnerabilities: { spectre_v2: 'Mitigation: Retpolines' }, clocksource: 'tsc', virtualization: 'kvm',
}

/** The fixture run with a fingerprint and a calibration written into its manifest. */
function fixtureWith(fingerprint: Fingerprint | null) {
  const dir = copyFixtureRun()
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...m, fingerprint, calibration: { loopback_rtt_us: 24.4, loopback_rtt_wall_us: 26.2, ecdsa_p256_sign_us: 14.4, rsa4096_sign_us: 3130, measured_at: 'x', cpuset: '1' } }))
  return loadRun(dir)
}

const render = (run: ReturnType<typeof loadRun>, base = loadBaseline('2026-11-30-quick-2core')) => {
  const a = new Article()
  const charts = baselineSection(a, compareWithBaseline(run, base, []))
  // Markdown escapes read back as text, so the patterns below can say what a reader sees.
  return { md: a.toString().replace(/\\(.)/g, '$1'), charts, files: a.files }
}

test('baseline without a fingerprint or calibration: said so; raw and calibrated (direct row) side by side', () => {
  const { md, charts, files } = render(fixtureWith(FP))
  assert.match(md, /not recorded by the baseline/)
  assert.doesNotMatch(md, /the same machine as this run/) // hostname and CPU string alone do not make one machine
  assert.match(md, /never on the raw µs delta/)
  assert.match(md, /loopback round trip \(CPU µs\) \(used\): baseline no calibration recorded, this run 24\.4 µs/)
  assert.match(md, /the calibrated unit of requests direct row \(backend CPU µs\/req\), of messages direct row \(backend CPU µs\/req\), of handshakes direct row \(backend CPU µs\/req\), of L4 connections and MiB loopback round trip \(CPU µs\)\)/)
  assert.match(md, /direct row \(backend CPU µs\/req\) \(used\): baseline \d[\d.]* µs, this run \d[\d.]* µs, ratio /)
  // The page: what fits A4 (table, version and reference are in the CSV; the version beside the proxy).
  assert.match(md, /\| series \| proxy \| cell \| baseline \(µs\) \| this run \(µs\) \| raw delta \| baseline \(calibrated\) \| this run \(calibrated\) \| calibrated delta \|/)
  // nginx pool-added: both runs have the direct row, so the cell has calibrated values.
  const row = md.split('\n').find((l) => /^\| pool-added \| nginx \d/.test(l))!
  const cells = row.split(' | ')
  assert.ok(Number(cells[6]) > 0 && Number(cells[7]) > 0)
  const csv = files.find((f) => f.path === 'data/baseline.csv')!.content
  const [header, ...lines] = csv.trim().split('\n')
  assert.equal(header, 'table,series,proxy,version,cell,baseline (µs),this run (µs),raw delta,reference,baseline (calibrated),this run (calibrated),calibrated delta')
  assert.ok(lines.some((l) => /^measurements,pool-added,nginx,[^,]+,pool-added ec256,.*,direct,/.test(l)), 'the CSV keeps each row\'s table, version and reference')
  // The section draws no chart: the dot plot of the changes is among the pictures, in the calibrated unit where both runs have the reference.
  assert.deepEqual(charts, [])
  const cmp = compareWithBaseline(fixtureWith(FP), loadBaseline('2026-11-30-quick-2core'), [])
  assert.equal(cmp.kind, 'run')
  const { changes, calibrated } = changesFromDeltas(cmp.kind === 'run' ? cmp.deltas : [])
  assert.ok(calibrated)
  assert.ok(changes.length > 0 && changes.every((c) => Number.isFinite(c.change) && c.cell.length > 0))
})

test('fingerprints on both sides: the differences are listed; identical ones are the same machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-base-'))
  const base = fixtureWith({ ...FP, kernel_release: '6.18.44-fc-v857', kernel_version: 'Linux version 6.18.44-fc-v857 #1', vulnerabilities: { spectre_v2: 'Mitigation: IBRS' } })
  const baseline = { id: 'b', dir, kind: 'run' as const, run: base }
  const { md } = render(fixtureWith(FP), baseline)
  assert.match(md, /\*\*The machines differ\*\*/)
  assert.match(md, /- kernel 6\.18\.44-fc-v857 → 6\.18\.44-fc-v657/)
  assert.match(md, /- vulnerabilities\/spectre_v2: 'Mitigation: IBRS' → 'Mitigation: Retpolines'/)
  const same = render(fixtureWith(FP), { ...baseline, run: fixtureWith(FP) }).md
  assert.match(same, /the same machine as this run/)
  assert.match(same, /the same as the baseline's/)
  // Same run, same reference: every calibrated delta is 0 and not significant, on as many valid repeats a side.
  const pooled = same.split('\n').filter((l) => l.startsWith('| pool-added | '))
  assert.ok(pooled.length > 0)
  for (const l of pooled) assert.ok(/\| ~ \(p=1\.000 n=(\d+)\+\1\) \|$/.test(l) || l.includes('—'), l)
})

test('a run made with --like: the comparison says which baseline it repeats, with what, and what it could not repeat as it was', () => {
  const run = fixtureWith(FP)
  writeLike(run.dir, { baseline: '2026-11-30-quick-2core', flags: { profile: 'quick', versions: '1.22.1,1.33.0' }, notes: ['nginx 1.31.3 is no longer in the catalog: the newest, 1.33.0, measured instead', '<b>x</b>'] })
  const { md } = render(run)
  assert.match(md, /This run repeats baseline \*\*2026-11-30-quick-2core\*\* \(--like 2026-11-30-quick-2core\), which means: --profile quick; --versions 1.22.1,1.33.0\./)
  assert.match(md, /- nginx 1.31.3 is no longer in the catalog: the newest, 1.33.0, measured instead/)
  // Data strings are escaped: the raw Markdown holds no tag.
  const raw = new Article()
  baselineSection(raw, compareWithBaseline(run, loadBaseline('2026-11-30-quick-2core'), []))
  assert.doesNotMatch(raw.toString(), /<b>/)
  // Without like.json: no such paragraph.
  assert.doesNotMatch(render(fixtureWith(FP)).md, /This run repeats baseline/)
})
