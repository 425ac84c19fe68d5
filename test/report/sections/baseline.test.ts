import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadBaseline } from '../../../lib/data/baselines.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import type { Fingerprint } from '../../../lib/data/schema.ts'
import { compareWithBaseline } from '../../../lib/report/build.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { baselineSection } from '../../../lib/report/sections/baseline.ts'
import { changesFromComparison } from '../../../lib/report/baseline-changes.ts'
import { writeLike } from '../../../lib/data/like.ts'
import { copyFixtureRun } from '../../fixtures/run.ts'
import { repoRoot } from '../../../lib/core/paths.ts'
import { compareAcrossRuns } from '../../../lib/analysis/compare.ts'
import { runFigures } from '../../../lib/analysis/run-figures.ts'

const FP: Fingerprint = {
  cpu_model: 'AMD EPYC',
  cpu_family: '26',
  cpu_model_number: '2',
  stepping: '1',
  microcode: '0x1000065',
  kernel_release: '6.18.44-fc-v657',
  kernel_version: 'Linux version 6.18.44-fc-v657 #1',
  vulnerabilities: { spectre_v2: 'Mitigation: Retpolines' },
  clocksource: 'tsc',
  virtualization: 'kvm',
}

/** The fixture run with a fingerprint and a calibration written into its manifest. */
function fixtureWith(fingerprint: Fingerprint | null) {
  const dir = copyFixtureRun()
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      ...m,
      fingerprint,
      calibration: { loopback_rtt_us: 24.4, loopback_rtt_wall_us: 26.2, ecdsa_p256_sign_us: 14.4, rsa4096_sign_us: 3130, measured_at: 'x', cpuset: '1' },
    }),
  )
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
  assert.match(
    md,
    /the calibrated unit of requests direct row \(backend CPU µs\/req\), of messages direct row \(backend CPU µs\/req\), of handshakes direct row \(backend CPU µs\/req\), of L4 connections and MiB loopback round trip \(CPU µs\)\)/,
  )
  assert.match(md, /direct row \(backend CPU µs\/req\) \(used\): baseline \d[\d.]* µs, this run \d[\d.]* µs, ratio /)
  // Counts, then ratios within a run, then costs: one table each; the CSV keeps table, version and the between-run source.
  const [counts, ratios, costs] = ['Counts per request', 'Ratios between cells of one run', 'Costs (µs'].map((t) => md.indexOf(t))
  assert.ok(counts > 0 && counts < ratios && ratios < costs, 'counts, ratios, costs in that order')
  assert.match(md, /\| figure \| series \| proxy \| cell \| baseline \| this run \| n \| change \[95%\] \| could detect \| verdict \|/)
  // nginx pool-added in the calibrated unit: both runs have the direct row.
  const row = md.split('\n').find((l) => /^\| proxy \/ direct \| pool-added \| nginx \d/.test(l))!
  const cells = row.split(' | ')
  assert.ok(Number(cells[4]) > 0 && Number(cells[5]) > 0, row)
  const csv = files.find((f) => f.path === 'data/baseline-ratio.csv')!.content
  const [header, ...lines] = csv.trim().split('\n')
  assert.equal(header, 'figure,table,series,proxy,version,cell,baseline,this run,n,change [95%],could detect,verdict,between-run SD (log),between-run source')
  assert.ok(
    lines.some((l) => /^proxy \/ direct,measurements,pool-added,nginx,[^,]+,pool-added,/.test(l)),
    "the CSV keeps each row's table and version",
  )
  assert.match(md, /Where the between-run variance of each row comes from/)
  // The section draws no chart: the dot plot of the changes is among the pictures, in the calibrated unit where both runs have the reference.
  assert.deepEqual(charts, [])
  const cmp = compareWithBaseline(fixtureWith(FP), loadBaseline('2026-11-30-quick-2core'), [])
  assert.equal(cmp.kind, 'run')
  const { changes, calibrated } = changesFromComparison(cmp.kind === 'run' ? cmp.comparison : [])
  assert.ok(calibrated)
  assert.ok(changes.length > 0 && changes.every((c) => Number.isFinite(c.change) && c.cell.length > 0))
})

test('fingerprints on both sides: the differences are listed; identical ones are the same machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-base-'))
  const base = fixtureWith({
    ...FP,
    kernel_release: '6.18.44-fc-v857',
    kernel_version: 'Linux version 6.18.44-fc-v857 #1',
    vulnerabilities: { spectre_v2: 'Mitigation: IBRS' },
  })
  const baseline = { id: 'b', dir, kind: 'run' as const, run: base }
  const { md } = render(fixtureWith(FP), baseline)
  assert.match(md, /\*\*The machines differ\*\*/)
  assert.match(md, /- kernel 6\.18\.44-fc-v857 → 6\.18\.44-fc-v657/)
  assert.match(md, /- vulnerabilities\/spectre_v2: 'Mitigation: IBRS' → 'Mitigation: Retpolines'/)
  const same = render(fixtureWith(FP), { ...baseline, run: fixtureWith(FP) }).md
  assert.match(same, /the same machine as this run/)
  assert.match(same, /the same as the baseline's/)
  // Same run: every figure unchanged on as many valid repeats a side, and no change is named.
  const rows = same.split('\n').filter((l) => /^\| (proxy \/ direct|µs\/req) \| pool-added \| /.test(l))
  assert.ok(rows.length > 0)
  for (const l of rows) assert.ok(/\| (\d+)\+\1 \| \+0\.0%( \[[^\]]+\])? \| [^|]+ \| (no change|too few repeats to compare) \|$/.test(l), l)
})

test('a run made with --like: the comparison says which baseline it repeats, with what, and what it could not repeat as it was', () => {
  const run = fixtureWith(FP)
  writeLike(run.dir, {
    baseline: '2026-11-30-quick-2core',
    flags: { profile: 'quick', versions: '1.22.1,1.33.0' },
    notes: ['nginx 1.31.3 is no longer in the catalog: the newest, 1.33.0, measured instead', '<b>x</b>'],
  })
  const { md } = render(run)
  assert.match(
    md,
    /This run repeats baseline \*\*2026-11-30-quick-2core\*\* \(--like 2026-11-30-quick-2core\), which means: --profile quick; --versions 1.22.1,1.33.0\./,
  )
  assert.match(md, /- nginx 1.31.3 is no longer in the catalog: the newest, 1.33.0, measured instead/)
  // What ran, from the rows: the fixture's pooling cells ran another HAProxy than the baseline's.
  const haproxy = loadRun(run.dir).measurements.find((r) => r.series === 'pool-added' && r.proxy === 'haproxy')!.version
  assert.notEqual(haproxy, '2.8.25')
  assert.match(md, new RegExp(`- pool-added: haproxy 2\\.8\\.25 in the baseline, ${haproxy.replace(/\./g, '\\.')} in this run`))
  assert.doesNotMatch(md, /Every series of the baseline ran here/)
  // Data strings are escaped: the raw Markdown holds no tag.
  const raw = new Article()
  baselineSection(raw, compareWithBaseline(run, loadBaseline('2026-11-30-quick-2core'), []))
  assert.doesNotMatch(raw.toString(), /<b>/)
  // Without like.json: no such paragraph.
  assert.doesNotMatch(render(fixtureWith(FP)).md, /This run repeats baseline/)
})

test("--like: the sentence about what was repeated comes from the rows, and says every series when all ran the baseline's versions", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-like-'))
  cpSync(join(repoRoot, 'baselines/runs/2026-11-30-quick-2core'), dir, { recursive: true })
  writeLike(dir, { baseline: '2026-11-30-quick-2core', flags: { profile: 'quick' }, notes: [] })
  const { md } = render(loadRun(dir))
  assert.match(
    md,
    /Series that ran the baseline's versions of every proxy: .*pool-added.*tls-handshake.*\. Every series of the baseline ran here with the baseline's versions\./,
  )
  assert.doesNotMatch(md, /Ran otherwise than in the baseline/)
})

test('with a between-run prior for every family: the same run twice is "no change" everywhere, each row with what it could have seen', () => {
  const run = fixtureWith(FP)
  const prior = Object.fromEntries([...new Set(runFigures(run).map((f) => f.family))].map((f) => [f, { sd: 0.05, df: 40 }]))
  const b = compareWithBaseline(run, { id: 'b', dir: run.dir, kind: 'run', run: fixtureWith(FP) }, [])
  assert.ok(b.kind === 'run')
  const a = new Article()
  baselineSection(a, { ...b, comparison: compareAcrossRuns(run, run, { prior }) })
  const md = a.toString().replace(/\\(.)/g, '$1')
  assert.match(
    md,
    /(\d+) of \d+ figures could be tested; 0 changed beyond the noise; the \1 without a change could have seen changes of ±[\d.]+% \(median\) to ±[\d.]+% \(largest\)\./,
  )
  assert.match(md, /- lab note docs\/lab-notes\/2026-12-02-between-run-noise\.md \(40 df\): \d+ figures/)
  const row = md.split('\n').find((l) => /^\| proxy \/ direct \| pool-added \| nginx /.test(l))!
  assert.match(row, /\| \+0\.0% \[-[\d.]+%, \+[\d.]+%\] \| ±[\d.]+% \| no change \|$/)
})
