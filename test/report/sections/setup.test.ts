import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadRun } from '../../../lib/data/run-data.ts'
import { SCHEMA_VERSION, type Invocation } from '../../../lib/data/schema.ts'
import { Article } from '../../../lib/report/markdown.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { buildsText, setupSection } from '../../../lib/report/sections/setup.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

const inv = (id: number, o: Partial<Invocation> = {}): Invocation => ({
  id,
  commit: `c0ffee00000${id}`,
  dirty: id === 2,
  argv: [],
  profile: 'quick',
  repeats: 2,
  duration_s: 3,
  series: ['pooling'],
  proxies: ['haproxy'],
  cpusets: { proxy: '1', backend: '0', generator: '0' },
  runtime: 'native',
  network: 'host',
  seed: id,
  components: [],
  custom_configs: [],
  schema_version: SCHEMA_VERSION,
  fingerprint: null,
  started: `2026-11-30T10:0${id}:00Z`,
  finished: null,
  changes: [],
  ...o,
})

function setupMarkdown(mutate: (run: ArticleInput['run']) => void): string {
  const run = loadRun(FIXTURE_RUN)
  mutate(run)
  const a = new Article()
  setupSection(a, { run } as ArticleInput)
  return a.toString().replace(/\\(.)/g, '$1') // the escapes of the Markdown, for readable patterns
}

test('a run of one invocation shows no invocation table (the golden article is unchanged)', () => {
  assert.doesNotMatch(
    setupMarkdown((run) => (run.manifest.invocations = [inv(1)])),
    /invocations/,
  )
})

test('a resume with --allow-changes: the setup section lists each invocation, its change and its rows', () => {
  const md = setupMarkdown((run) => {
    run.manifest.invocations = [inv(1), inv(2, { changes: ['--seed 1 → 2'] })]
    for (const [i, r] of run.measurements.entries()) r.invocation = i < 10 ? 1 : i < 15 ? 2 : null
    // The other tables' rows as if written before invocations were recorded.
    for (const r of [...run.handshakes, ...run.websocket, ...(run.tcp ?? [])]) r.invocation = null
  })
  assert.match(md, /measured by 2 invocations .*\*\*settings changed between them\*\*/)
  assert.match(md, /\| 1 \| 2026-11-30 10:01:00 \| c0ffee000001 \| native, host \| .* \| 1 \| — \| 10 \|/)
  assert.match(md, /\| 2 \| 2026-11-30 10:02:00 \| c0ffee000002 \(dirty\) \| .* \| --seed 1 → 2 \| 5 \|/)
  assert.match(md, /rows carry no invocation: written before invocations were recorded/)
})

test('a run on several hosts: the topology, each host and the network measured between generator and proxy', () => {
  const fp = loadRun(FIXTURE_RUN).manifest.fingerprint
  const md = setupMarkdown((run) => {
    run.manifest.hosts = {
      source: '--hosts',
      roles: [
        { role: 'proxy', engine: 'ssh://10.77.0.2', address: '10.77.0.2', cpuset: '0-1', files: 'through the API' },
        { role: 'backend', engine: 'tcp://10.77.0.3:2376', address: '10.77.0.3', cpuset: '0', files: 'through the API' },
        { role: 'generator', engine: 'unix:///run/pb/docker.sock', address: '10.77.0.4', cpuset: '1', files: 'bind mounts' },
      ],
      hosts: [
        {
          engine: 'ssh://10.77.0.2',
          name: 'pb-ssh',
          os: 'Debian GNU/Linux 12 (bookworm)',
          kernel: '6.1.0',
          cpus: 2,
          memory_gib: 7.8,
          engine_version: '20.10.24',
          cpu_source: 'docker API container stats',
          fingerprint: fp,
          images: [{ image: 'proxybench/haproxy:3.4.7', id: 'sha256:73b5', sent: true }],
        },
      ],
      network: { from: 'unix:///run/pb/docker.sock', to: 'ssh://10.77.0.2', connect_echo_p50_ms: 0.112, stream_mib_per_s: 1234.5, issue: null },
    }
  })
  assert.match(md, /\*\*Roles on 1 Docker host\*\* \(topology from --hosts\)/)
  assert.match(
    md,
    /unix:\/\/\/run\/pb\/docker.sock → ssh:\/\/10.77.0.2\), measured before the cells: 0.112 ms per short connection .*, 1235 MiB\/s echoed on one stream\./,
  )
  assert.match(md, /\| proxy \| ssh:\/\/10.77.0.2 \| 10.77.0.2 \| 0-1 \| through the API \|/)
  assert.match(md, /\| ssh:\/\/10.77.0.2 \| pb-ssh \| .* \| 2 \| 7.8 \| 6.1.0 \| Debian GNU\/Linux 12 \(bookworm\) \| 20.10.24 \| 1 \|/)
  assert.doesNotMatch(
    setupMarkdown(() => {}),
    /Docker host/,
  )
})

test('builds not as pinned: each substituted build and each version not runnable here, escaped; nothing when every pin was measured', () => {
  const component = { component: 'nginx', version: '1.26.3', source: 'debian:trixie nginx', path: '/x', sha256: 'a'.repeat(64) }
  assert.equal(buildsText({ components: [component], not_runnable: [] }), '')
  const text = buildsText({
    components: [
      { ...component, build_note: 'nginx 1.26.3: pinned 1.26.3-3+deb13u11, measured 1.26.3-3+deb13u12 (sha256 779c49140d69): pinned build no longer served' },
    ],
    not_runnable: [{ component: 'caddy', version: '2.6.2', reason: 'caddy 2.6.2: not runnable here: <gone>' }],
  })
  assert.match(text, /^\*\*Builds not as pinned\*\*/)
  assert.ok(text.includes('\\<gone\\>'), 'markdown in a reason is escaped')
  const plain = text.replace(/\\(.)/g, '$1')
  assert.match(plain, /measured 1\.26\.3-3\+deb13u12 .*; caddy 2\.6\.2: not runnable here: <gone>\.$/)
})

test('the slice rule is stated in the setup section where a window was counted from its clean slices, not otherwise', () => {
  const rule = /A window disturbed in part whose clean half-second slices cover at least half of it counts those slices only/
  assert.doesNotMatch(
    setupMarkdown(() => {}),
    rule,
  )
  const md = setupMarkdown((run) => {
    const r = run.measurements.find((x) => x.status === 'valid' && x.model === 'closed')!
    r.counted_share = 0.75
  })
  assert.match(md, /1 counted from their clean slices/)
  assert.match(md, rule)
  assert.doesNotMatch(md, /extended/)
  const extended = setupMarkdown((run) => {
    const r = run.measurements.find((x) => x.status === 'valid' && x.model === 'closed')!
    r.counted_share = 0.6
    r.duration_s = run.manifest.profile_settings.duration_s + 1.5
  })
  assert.match(extended, /1 extended by 1\.5 s for clean time/)
  assert.match(extended, /A closed window disturbed as a whole went on, a slice at a time/)
})

test('a cell other work left short of its minimum valid repeats is named in the setup section: not measured, machine too busy', () => {
  const closed = (run: ArticleInput['run']) => run.measurements.filter((x) => x.model === 'closed')
  // Every window of the fixture undisturbed: no cell left short.
  const quiet = (run: ArticleInput['run']) => {
    for (const r of [...run.measurements, ...run.handshakes, ...run.websocket, ...(run.tcp ?? [])])
      Object.assign(r, { status: 'valid', reason: '', foreign_processes: '' })
  }
  assert.doesNotMatch(setupMarkdown(quiet), /not measured/)
  const md = setupMarkdown((run) => {
    quiet(run)
    // Every window of one closed cell disturbed, by a named neighbour.
    const [first] = closed(run)
    for (const r of closed(run).filter((x) => (['series', 'proxy', 'version', 'variant', 'connections'] as const).every((k) => x[k] === first![k])))
      Object.assign(r, { status: 'invalid', reason: "disturbed: steal 0.0% / foreign CPU 45% on the proxy's cores", foreign_processes: 'pb-neighbour 45%' })
  })
  assert.match(md, /1 cell not measured/)
  assert.match(
    md,
    /Cells not measured, the machine too busy: [^;]*: not measured: machine too busy \(\d+ of \d+ windows disturbed, 100%; culprits pb-neighbour \d+\.\d core-s\)\./,
  )
})
