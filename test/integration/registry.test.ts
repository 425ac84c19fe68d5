import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs'
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
