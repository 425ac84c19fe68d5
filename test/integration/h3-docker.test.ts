import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { loadStack } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { catalogCellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { measureH3 } from '../../lib/measure/h3.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { LABEL_RUN } from '../../lib/runtime/docker/labels.ts'
import { DockerRuntime } from '../../lib/runtime/docker/runtime.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { dockerClient, stopStartedEngine } from '../../lib/setup/docker-engine.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'
import { testNeeding } from '../support/needs.ts'
import { dockerEngineOrReason } from '../support/docker-engine.ts'

// The h3 series on the docker runtime (docs/series/h3.md#runtimes): host networking, so the
// proxy container's UDP port is on the host's loopback like its TCP port. Caddy's newest
// build speaks HTTP/3 and is its catalog's last entry (the image the tests build).
const { engine, missing } = await dockerEngineOrReason()
const runId = `test-${process.pid}-h3`

after(async () => {
  if (missing) return
  for (const c of await dockerClient().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } }))
    await dockerClient().getContainer(c.Id).remove({ force: true })
  if (engine?.started) await stopStartedEngine()
})

testNeeding("h3 on docker: a closed-model h3 cell and a QUIC handshake cell through Caddy's container", { id: 'integration/docker', missing }, async () => {
  for (const g of ['backend', 'loadgen'] as const) assert.equal((await ensureGoBuild(g)).error, undefined)
  const images = await ensureImages({ mode: 'offline', proxies: ['caddy'], newestOnly: true, log: memoryLogger() })
  for (const row of images.rows) assert.notEqual(row.status, 'failed', `${row.component} ${row.version}: ${row.note}`)
  const work = mkdtempSync(join(tmpdir(), 'pb-h3-docker-'))
  const certs = await ensureCerts(join(work, 'certs'), { force: false, log: memoryLogger() })
  const runtime = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: images.records })
  const ctx: CellContext = {
    runtime,
    runId,
    runDir: join(work, 'run'),
    cpus: defaultCpuLayout(),
    profile: { ...PROFILES.smoke!, warmupS: 2, durationS: 2 },
    certs,
  }
  const version = loadStack('caddy').versions.at(-1)!
  try {
    const closed = await measureH3(
      { ...catalogCellPlan('caddy', { series: 'h3', variant: 'h3', connections: 4, version }), protocol: 'h3', streams: 2 },
      1,
      ctx,
    )
    assert.equal(closed.runtime, 'docker')
    assert.notEqual(closed.status, 'failed', closed.reason)
    assert.doesNotMatch(closed.reason, /verification|ALPN|HTTP\/3|no request/)
    assert.ok(closed.requests > 0 && (closed.proxy_cpu_us_per_req ?? 0) > 0 && (closed.udp_datagrams_per_req ?? 0) >= 1, JSON.stringify(closed))

    const hs = await measureHandshakes(
      { ...catalogCellPlan('caddy', { series: 'h3-handshake', variant: 'h3', connections: 4, version }), protocol: 'h3', resumption: 'none' },
      1,
      ctx,
    )
    assert.notEqual(hs.status, 'failed', hs.reason)
    assert.doesNotMatch(hs.reason, /verification|ALPN|resumed/)
    assert.ok(hs.handshakes > 0 && (hs.proxy_cpu_us_per_handshake ?? 0) > 0 && (hs.udp_datagrams_per_req ?? 0) >= 4, JSON.stringify(hs))
  } finally {
    await runtime.stopAll()
  }
})
