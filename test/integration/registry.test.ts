import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { binaryPath, loadStack, newestVersion } from '../../lib/catalog/stack.ts'
import { orderVersions } from '../../lib/catalog/version-order.ts'
import { bisectState } from '../../lib/core/bisect.ts'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { freePort, waitForPort } from '../../lib/roles/net.ts'
import { ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { OFFICIAL_BINARY } from '../../lib/setup/images.ts'
import { listTags, parseRepoRef } from '../../lib/setup/registry.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { readBisectPlan } from '../../lib/data/bisect.ts'
import { median } from '../../lib/core/stats.ts'

// A real registry (Debian's docker-registry, the distribution project's server) on loopback,
// real pushes by the Docker engine: the path a bisect over published tags takes online.
// Skipped, with the reason, where the registry package or an engine is missing.
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
  if (repo) for (const tag of ['1.22.1', '1.31.3']) await exec('docker', ['rmi', '-f', `${repo}-bisect:${tag}`])
  registry?.kill('SIGTERM')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('registry tags: listed through the API page by page, ordered for a bisect, aliases and flavours set aside', { skip }, async () => {
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
})

test('registry: an unknown repository and a registry that does not answer are one line each', { skip }, async () => {
  const ref = parseRepoRef(repo)
  await assert.rejects(listTags({ ...ref, repository: 'no-such-image' }), /--tags-from 127\.0\.0\.1:\d+\/no-such-image: the registry has no such repository/)
  const closed = await freePort()
  await assert.rejects(listTags(parseRepoRef(`127.0.0.1:${closed}/nginx`), { timeoutMs: 3000 }), /--tags-from 127\.0\.0\.1:\d+\/nginx: the registry does not answer/)
  assert.throws(() => parseRepoRef('nginx'), /not a repository reference with its registry/)
})

// Two releases that differ: Debian's nginx 1.22.1 (the offline image 02-stacks builds) and the
// static 1.31.3, whose named upstream keeps backend connections alive by default.
const OLD_IMAGE = 'proxybench/nginx:1.22.1'
const hasOld = !skip && (await exec('docker', ['image', 'inspect', OLD_IMAGE])).code === 0

test('bisect over registry tags: each release runs from its image on the docker runtime, and the step is named from the rows', { skip: skip || (hasOld ? false : `${OLD_IMAGE} not built (npx zx notebooks/02-stacks.mjs)`) }, async () => {
  const bisectRepo = `${repo}-bisect`
  for (const [tag, from] of [['1.22.1', OLD_IMAGE], ['1.31.3', `${repo}:1.31.3`]] as const) {
    assert.equal((await exec('docker', ['tag', from, `${bisectRepo}:${tag}`])).code, 0)
    const pushed = await exec('docker', ['push', `${bisectRepo}:${tag}`], { timeoutMs: 120_000 })
    assert.equal(pushed.code, 0, pushed.stderr || pushed.stdout)
    // The run pulls what it needs: nothing of the registry's may be there beforehand.
    await exec('docker', ['rmi', `${bisectRepo}:${tag}`])
  }
  const out = join(dir, 'run')
  const r = await exec('npx', ['zx', 'notebooks/bisect.mjs', '--proxy', 'nginx', '--variant', 'upstream-default', '--metric', 'conns', '--tags-from', bisectRepo, '--profile', 'smoke', '--out', out, '--no-report'], { cwd: repoRoot, timeoutMs: 300_000 })
  assert.equal(r.code, 0, (r.stderr + r.stdout).slice(-2000))
  const plan = readBisectPlan(out)!
  assert.deepEqual(plan.searches[0]!.versions, ['1.22.1', '1.31.3'])
  assert.equal(plan.searches[0]!.images['1.22.1'], `${bisectRepo}:1.22.1`)
  const rows = readTable(out, MEASUREMENTS).filter((x) => x.series === 'bisect')
  assert.deepEqual([...new Set(rows.map((x) => x.version))].sort(), ['1.22.1', '1.31.3'])
  assert.equal(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).runtime, 'docker')
  // Where the windows were valid, the two images behave as their releases do: no pool, then a pool.
  const conns = (v: string) => rows.filter((x) => x.version === v && x.status === 'valid').map((x) => x.backend_conns_per_1k_req!)
  if (conns('1.22.1').length && conns('1.31.3').length) assert.ok(median(conns('1.22.1')) > 900 && median(conns('1.31.3')) < 800, `${conns('1.22.1')} / ${conns('1.31.3')}`)
  assert.match(r.stdout, /nginx upstream-default: (the step is between 1\.22\.1 and 1\.31\.3|inconclusive)/)
})
