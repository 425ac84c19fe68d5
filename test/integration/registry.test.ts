import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { binaryPath, loadStack, newestVersion } from '../../lib/catalog/stack.ts'
import { orderVersions } from '../../lib/catalog/version-order.ts'
import { bisectState } from '../../lib/core/bisect.ts'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { freePort, waitForPort } from '../../lib/roles/net.ts'
import { ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'
import { OFFICIAL_BINARY } from '../../lib/setup/images/names.ts'
import { listTags, parseRepoRef } from '../../lib/setup/registry.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { bisectResults, readBisectPlan } from '../../lib/data/bisect.ts'
import { median } from '../../lib/core/stats.ts'
import { testNeeding } from '../support/needs.ts'

// A real registry (Debian's docker-registry, the distribution project's server) on loopback,
// real pushes by the Docker engine: the path a bisect over published tags takes online.
// Skipped, with the reason, where the registry package or an engine is missing (in CI: failed, docs/ci.md#skips).
const REGISTRY = '/usr/bin/docker-registry'
let skip: string | false = existsSync(REGISTRY) ? false : `${REGISTRY} missing (apt-get install docker-registry)`
if (!skip) {
  try {
    await ensureDockerEngine(memoryLogger())
  } catch (e) {
    skip = `no Docker engine: ${(e as Error).message}`
  }
}

let registry: ChildProcess | undefined
let dir = ''
let repo = ''
// The tags a registry shows beside releases: an alias, a flavour, a pre-release, a word.
const TAGS = ['1.22.1', '1.29.6', '1.29.7', '1.31.3', '1.31', '1.31.3-alpine', '1.32.0-rc1', 'latest']

before(async () => {
  if (skip) return
  dir = mkdtempSync(join(tmpdir(), 'pb-registry-'))
  const port = await freePort()
  writeFileSync(join(dir, 'config.yml'), `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`)
  registry = spawn(REGISTRY, ['serve', join(dir, 'config.yml')], { stdio: 'ignore' })
  await waitForPort(port, { timeoutMs: 20_000, what: 'docker-registry' })
  repo = `127.0.0.1:${port}/nginx`
  // An image from the catalog's static nginx binary, at the official image's path, pushed under every tag.
  const root = join(dir, 'root')
  mkdirSync(join(root, 'usr/sbin'), { recursive: true })
  const bin = join(root, OFFICIAL_BINARY.nginx)
  copyFileSync(binaryPath('nginx', newestVersion(loadStack('nginx'))), bin)
  chmodSync(bin, 0o755)
  const tar = await exec('tar', ['-C', root, '-cf', join(dir, 'root.tar'), '.'])
  assert.equal(tar.code, 0, tar.stderr)
  const imported = await exec('docker', ['import', join(dir, 'root.tar'), `${repo}:${TAGS[0]}`])
  assert.equal(imported.code, 0, imported.stderr)
  for (const tag of TAGS) {
    if (tag !== TAGS[0]) assert.equal((await exec('docker', ['tag', `${repo}:${TAGS[0]}`, `${repo}:${tag}`])).code, 0)
    const pushed = await exec('docker', ['push', `${repo}:${tag}`], { timeoutMs: 60_000 })
    assert.equal(pushed.code, 0, pushed.stderr || pushed.stdout)
  }
})

after(async () => {
  if (repo) for (const tag of TAGS) await exec('docker', ['rmi', '-f', `${repo}:${tag}`])
  if (repo) for (const tag of RELEASES) await exec('docker', ['rmi', '-f', `${repo}-bisect:${tag}`])
  registry?.kill('SIGTERM')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

testNeeding(
  'registry tags: listed through the API page by page, ordered for a bisect, aliases and flavours set aside',
  { id: 'integration/registry', missing: skip },
  async () => {
    const ref = parseRepoRef(repo)
    assert.equal(ref.scheme, 'http')
    // Pages of 3: the registry links the next page (Link: rel="next") until the last.
    const tags = await listTags(ref, { pageSize: 3 })
    assert.deepEqual([...tags].sort(), [...TAGS].sort())
    const { versions, skipped } = orderVersions(tags)
    assert.deepEqual(versions, ['1.22.1', '1.29.6', '1.29.7', '1.31.3'])
    assert.deepEqual(skipped.map((s) => s.tag).sort(), ['1.31', '1.31.3-alpine', '1.32.0-rc1', 'latest'])
    // A bisect over them starts at the ends.
    const first = bisectState(versions, new Map())
    assert.deepEqual(first.kind === 'measure' ? first.versions : [], ['1.22.1', '1.31.3'])
    // Each tag is a runnable image: the binary at the official image's path answers -v.
    const v = await exec('docker', ['run', '--rm', `${repo}:1.29.7`, OFFICIAL_BINARY.nginx, '-v'], { timeoutMs: 60_000 })
    assert.equal(v.code, 0, v.stderr)
    assert.match(v.stderr + v.stdout, /nginx version: nginx\//)
  },
)

testNeeding(
  'registry: an unknown repository and a registry that does not answer are one line each',
  { id: 'integration/registry', missing: skip },
  async () => {
    const ref = parseRepoRef(repo)
    await assert.rejects(listTags({ ...ref, repository: 'no-such-image' }), /--tags-from 127\.0\.0\.1:\d+\/no-such-image: the registry has no such repository/)
    const closed = await freePort()
    await assert.rejects(
      listTags(parseRepoRef(`127.0.0.1:${closed}/nginx`), { timeoutMs: 3000 }),
      /--tags-from 127\.0\.0\.1:\d+\/nginx: the registry does not answer/,
    )
    assert.throws(() => parseRepoRef('nginx'), /not a repository reference with its registry/)
  },
)

// Four releases from their images, a known step between two adjacent ones: nginx's named
// upstream pools backend connections by default from 1.29.7 on (stacks/nginx/stack.yaml,
// upstream-default), so 1.22.1 (bookworm) and 1.26.3 (trixie) open one backend connection per
// request and 1.30.6 (sid) and 1.31.3 (the static build) reuse them: the step lies between
// 1.26.3 and 1.30.6, and the bisect must reach it through a halving probe, not the ends alone.
const RELEASES = ['1.22.1', '1.26.3', '1.30.6', '1.31.3']

testNeeding(
  'bisect over four registry tags: each release runs from its image, the halving probes name exactly the pair with the step',
  { id: 'integration/registry', missing: skip, timeout: 1_800_000 },
  async () => {
    // The offline images of the catalog versions (built once, then cached by their inputs): what CI needs, built here
    // (a fresh machine: the base rootfs and four images, minutes; the bisect itself about four minutes on 2 busy cores).
    const imgs = await ensureImages({ mode: 'offline', proxies: ['nginx'], log: memoryLogger() })
    const bad = imgs.rows.find((r) => r.status === 'failed')
    assert.equal(bad, undefined, bad && `image ${bad.component} ${bad.version}: ${bad.note}`)
    const bisectRepo = `${repo}-bisect`
    // Debian's builds keep nginx at the official image's path; the static one is the image pushed above.
    const from: Record<string, string> = {
      '1.22.1': 'proxybench/nginx:1.22.1',
      '1.26.3': 'proxybench/nginx:1.26.3',
      '1.30.6': 'proxybench/nginx:1.30.6',
      '1.31.3': `${repo}:1.31.3`,
    }
    for (const tag of RELEASES) {
      assert.equal((await exec('docker', ['tag', from[tag]!, `${bisectRepo}:${tag}`])).code, 0)
      const pushed = await exec('docker', ['push', `${bisectRepo}:${tag}`], { timeoutMs: 180_000 })
      assert.equal(pushed.code, 0, pushed.stderr || pushed.stdout)
      // The run pulls what it needs: no tag of the registry's may be there beforehand.
      await exec('docker', ['rmi', `${bisectRepo}:${tag}`])
    }
    const out = join(dir, 'run')
    const r = await exec(
      'npx',
      [
        'zx',
        'notebooks/bisect.mjs',
        '--proxy',
        'nginx',
        '--variant',
        'upstream-default',
        '--metric',
        'conns',
        '--tags-from',
        bisectRepo,
        '--profile',
        'smoke',
        '--out',
        out,
        '--no-report',
      ],
      { cwd: repoRoot, timeoutMs: 600_000 },
    )
    assert.equal(r.code, 0, (r.stderr + r.stdout).slice(-2000))
    const plan = readBisectPlan(out)!
    assert.deepEqual(plan.searches[0]!.versions, RELEASES)
    assert.deepEqual(plan.searches[0]!.images, Object.fromEntries(RELEASES.map((v) => [v, `${bisectRepo}:${v}`])))
    assert.equal(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).runtime, 'docker')
    const rows = readTable(out, MEASUREMENTS).filter((x) => x.series === 'bisect')
    // The ends, then the middle versions: every release was measured, each from its own image.
    assert.deepEqual([...new Set(rows.map((x) => x.version))].sort(), RELEASES)
    const conns = (v: string) => rows.filter((x) => x.version === v && x.status === 'valid').map((x) => x.backend_conns_per_1k_req!)
    for (const v of ['1.22.1', '1.26.3']) assert.ok(median(conns(v)) > 900, `${v} opens a backend connection per request: ${conns(v)}`)
    for (const v of ['1.30.6', '1.31.3']) assert.ok(median(conns(v)) < 800, `${v} reuses backend connections: ${conns(v)}`)
    // Replayed from the rows: exactly the adjacent pair with the step, reached by halving.
    const [result] = bisectResults(plan, rows)
    const state = result!.state
    assert.equal(state.kind, 'step', result!.line)
    assert.deepEqual(state.kind === 'step' ? [state.older, state.newer] : [], ['1.26.3', '1.30.6'])
    const ends = new Set([RELEASES[0], RELEASES.at(-1)])
    const halving = state.probes.filter((p) => !ends.has(p.older) || !ends.has(p.newer))
    assert.ok(halving.length >= 1, `probes: ${state.probes.map((p) => `${p.older}→${p.newer}`).join(', ')}`)
    assert.ok(
      state.probes.some((p) => p.older === '1.22.1' && p.newer === '1.31.3' && p.judgement.differs),
      'the ends differ',
    )
    assert.match(r.stdout, /nginx upstream-default: the step is between 1\.26\.3 and 1\.30\.6/)
  },
)
