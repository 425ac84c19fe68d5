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
import { writeLike } from '../../../lib/data/like.ts'
import { copyFixtureRun } from '../../fixtures/run.ts'
import { repoRoot } from '../../../lib/core/paths.ts'

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

/** The fixture run with a fingerprint (and a calibration, as runs before its retirement hold) written into its manifest. */
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

test('a run baseline without pairs: not compared, said why and how to pair; no chart, no table of costs across runs', () => {
  const { md, charts, files } = render(fixtureWith(FP))
  assert.match(md, /not recorded by the baseline/)
  assert.doesNotMatch(md, /the same machine as this run/) // hostname and CPU string alone do not make one machine
  assert.match(md, /This run was not made `--like 2026-11-30-quick-2core`, so no proxy is compared with the baseline/)
  assert.match(md, /npx zx notebooks\/run-all\.mjs --like 2026-11-30-quick-2core/)
  assert.deepEqual(charts, [])
  assert.deepEqual(files, [])
  assert.doesNotMatch(md, /calibrat|could detect|between-run/)
  // A paired run points at its pairs instead.
  const a = new Article()
  baselineSection(a, compareWithBaseline(fixtureWith(FP), loadBaseline('2026-11-30-quick-2core'), []), true)
  assert.match(a.toString(), /The comparison with this baseline is \[Then and now/)
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
