import type { Variant } from '../../lib/catalog/variants.ts'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { aptInstall, isRoot } from '../../lib/setup/apt.ts'
import { backendStats, startBackend } from '../../lib/roles/backend.ts'
import { loadStack, PROXIES, templateFile, type ProxyName } from '../../lib/catalog/stack.ts'
import { ensureCerts, type CertSet } from '../../lib/setup/certs.ts'
import { dockerClient, stopStartedEngine } from '../../lib/setup/docker-engine.ts'
import { exec } from '../../lib/core/exec.ts'
import { ensureGoBuild, goBinaryPath } from '../../lib/setup/gobuild.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'
import { pullImage, registryAnswers } from '../../lib/setup/images/pull.ts'
import type { ImageRecord } from '../../lib/setup/images/records.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { loadgenRequests } from '../../lib/roles/loadgen.ts'
import type { CellPlan } from '../../lib/measure/cell.ts'
import { measureClosed } from '../../lib/measure/closed.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { measureEcho } from '../../lib/measure/ws.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { freePort, waitForPort } from '../../lib/roles/net.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { prepareProxy, startProxy } from '../../lib/roles/proxy.ts'
import { cleanupStaleContainers } from '../../lib/runtime/docker/cleanup.ts'
import { LABEL_RUN } from '../../lib/runtime/docker/labels.ts'
import { containerAddress } from '../../lib/runtime/docker/network.ts'
import { DockerRuntime } from '../../lib/runtime/docker/runtime.ts'
import { skipNeeding, testNeeding } from '../support/needs.ts'
import { dockerEngineOrReason } from '../support/docker-engine.ts'

// Real engine, real images, real proxies. Skipped (with the reason) only when no engine
// answers and none can be started (not root, or dockerd missing).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const { engine, missing } = await dockerEngineOrReason()
if (missing) console.log(`docker tests skipped: ${missing}`)

const work = mkdtempSync(join(tmpdir(), 'pb-docker-'))
let certs: CertSet
let records: ImageRecord[] = []
const runIds: string[] = []
const newRunId = (what: string) => {
  const id = `test-${process.pid}-${what}`
  runIds.push(id)
  return id
}
const docker = () => dockerClient()
const labelled = async (runId: string) => (await docker().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } })).length

before(async () => {
  if (missing) return
  certs = await ensureCerts(join(work, 'certs'), { force: false, log: memoryLogger() })
  for (const g of ['backend', 'loadgen'] as const) assert.equal((await ensureGoBuild(g)).error, undefined)
  await cleanupStaleContainers()
})

after(async () => {
  if (missing) return
  for (const id of runIds) {
    for (const c of await docker().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${id}`] } }))
      await docker().getContainer(c.Id).remove({ force: true })
  }
  // An engine this test started goes again; one that was running stays.
  if (engine?.started) await stopStartedEngine()
})

testNeeding('engine: version, cgroup version and storage driver are reported', { id: 'integration/docker', missing }, () => {
  assert.match(engine!.version, /^\d+\.\d+/)
  assert.match(engine!.cgroupVersion, /^[12]$/)
  assert.ok(engine!.storageDriver.length > 0)
  console.log(
    `docker ${engine!.version}, API ${engine!.apiVersion}, cgroup v${engine!.cgroupVersion} (${engine!.cgroupDriver}), storage ${engine!.storageDriver}, security: ${engine!.securityOptions.join(',') || 'none'}`,
  )
})

testNeeding('offline images: base, backend, generator and the newest version of all five proxies', { id: 'integration/docker', missing }, async () => {
  const t0 = Date.now()
  const r = await ensureImages({ mode: 'offline', proxies: PROXIES, newestOnly: true, log: memoryLogger() })
  console.log(
    `images in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.rows.map((x) => `${x.component} ${x.version} ${x.status} ${x.seconds.toFixed(1)}s`).join(', ')}`,
  )
  for (const row of r.rows) assert.notEqual(row.status, 'failed', `${row.component} ${row.version}: ${row.note}`)
  for (const row of r.rows) assert.match(row.id, /^sha256:[0-9a-f]{64}$/)
  records = r.records
  assert.equal(records.length, PROXIES.length + 2)
})

testNeeding('every proxy answers through TLS from its container; CPU is counted; nothing is left', { id: 'integration/docker', missing }, async () => {
  assert.ok(records.length > 0, 'images built')
  const runId = newRunId('proxies')
  const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records })
  try {
    const backend = await startBackend(rt, { cpus: '0', logDir: work, host: '127.0.0.9' })
    for (const proxy of PROXIES) {
      const stack = loadStack(proxy)
      const version = stack.versions.at(-1)!
      const prepared = await prepareProxy({
        stack,
        version,
        variant: 'pool-added',
        template: templateFile(stack, 'pool-added'),
        certs: certs.files.ec256,
        backend,
        threads: 1,
        runDir: join(work, `${proxy}-run`),
      })
      const role = await startProxy(rt, prepared, '1', certs.ca)
      try {
        const cpu0 = await rt.cpuNs(role)
        const before = await backendStats(backend)
        const r = await loadgenRequests({ url: `https://127.0.0.1:${prepared.listenPort}/`, n: 300, c: 2, cacert: certs.ca, expectBody: 'hello world' })
        const after = await backendStats(backend)
        const used = (await rt.cpuNs(role)) - cpu0
        assert.equal(r.ok, r.requests, `${proxy} ${version.version}: ${r.error_samples[0] ?? JSON.stringify(r.status)}`)
        assert.equal(r.proto, 'HTTP/1.1')
        assert.ok(after.requests - before.requests >= r.requests, `${proxy}: the backend saw the requests`)
        // 300 TLS requests cost well over 1 ms of proxy CPU on any machine.
        assert.ok(used > 1e6, `${proxy}: proxy CPU grew by ${used} ns`)
        console.log(`${proxy} ${version.version}: ${r.ok}/${r.requests} ok, ${(used / 1e3 / r.requests).toFixed(1)} µs/req (pid ${role.pid})`)
      } finally {
        await rt.stop(role)
      }
    }
    // The generator role: wrk in its container, its output in logFile, its CPU readable after exit.
    const rawFile = join(work, 'wrk.txt')
    const gen = await rt.start({
      role: 'generator',
      name: 'wrk',
      argv: ['wrk', '-t', '1', '-c', '4', '-d', '1s', '-s', join(repoRoot, 'stacks', 'wrk', 'report.lua'), `http://${backend.host}:${backend.port}/`],
      cpus: '0',
      logFile: rawFile,
    })
    const exit = await gen.exited
    assert.equal(exit.code, 0)
    assert.match(readFileSync(rawFile, 'utf8'), /^PROXYBENCH_JSON \{/m)
    assert.doesNotMatch(readFileSync(rawFile, 'utf8'), /__PROXYBENCH_EXIT__/)
    assert.ok((await rt.cpuNs(gen)) > 50e6, 'the generator CPU of a 1 s wrk run is read after it exited')
  } finally {
    await rt.stopAll()
  }
  assert.equal(await labelled(runId), 0, 'no container of the run remains after stopAll')
})

testNeeding('one short pooling cell per proxy on docker, through the unchanged cell protocol', { id: 'integration/docker', missing }, async () => {
  assert.ok(records.length > 0, 'images built')
  const runId = newRunId('cells')
  const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records })
  const out = join(work, 'cells')
  try {
    for (const proxy of PROXIES) {
      const stack = loadStack(proxy)
      const v = stack.versions.at(-1)!
      const cell: CellPlan = {
        series: 'pooling',
        proxy,
        version: v.version,
        variant: 'pool-added',
        keyType: 'ec256',
        connections: 20,
        stack,
        stackVersion: v,
        template: templateFile(stack, 'pool-added'),
      }
      const m = await measureClosed(cell, 0, {
        runtime: rt,
        runId,
        runDir: out,
        cpus: defaultCpuLayout(),
        profile: { name: 'test', repeats: 1, warmupS: 1, durationS: 1, tailS: 1 },
        certs,
      })
      console.log(
        `cell ${proxy} ${v.version} pool-added on docker: ${m.status} ${m.proxy_cpu_us_per_req} µs/req, ${m.rps} rps, generator share ${m.generator_cpu_share} ${m.reason}`,
      )
      assert.equal(m.status, 'valid', `${proxy}: ${m.reason}`)
      assert.equal(m.runtime, 'docker')
      assert.ok(m.requests > 0 && m.proxy_cpu_us_per_req! > 0 && m.generator_cpu_share! > 0)
    }
  } finally {
    await rt.stopAll()
  }
  assert.equal(await labelled(runId), 0)
})

testNeeding('a container killed mid-way has exit set, and its CPU stays readable', { id: 'integration/docker', missing }, async () => {
  const runId = newRunId('killed')
  const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records })
  try {
    const backend = await startBackend(rt, { cpus: '0', logDir: work, host: '127.0.0.10', name: 'doomed' })
    // The counter file and the stats API are the same counter.
    const cpu = await rt.cpuNs(backend.role)
    const stats = (await docker()
      .getContainer((backend.role as { containerId?: string }).containerId!)
      .stats({ stream: false })) as { cpu_stats: { cpu_usage: { total_usage: number } } }
    const cpu2 = await rt.cpuNs(backend.role)
    assert.ok(
      cpu <= stats.cpu_stats.cpu_usage.total_usage && stats.cpu_stats.cpu_usage.total_usage <= cpu2,
      `${cpu} <= ${stats.cpu_stats.cpu_usage.total_usage} <= ${cpu2}`,
    )
    assert.match(rt.cpuSource, /^container cgroup counter file \([^)]*\)$/)
    await docker()
      .getContainer((backend.role as { containerId?: string }).containerId!)
      .kill()
    const exit = await backend.role.exited
    assert.equal(backend.role.exit, exit)
    assert.equal(exit.code, 137)
    assert.equal(exit.signal, 'SIGKILL')
    assert.ok((await rt.cpuNs(backend.role)) >= cpu)
  } finally {
    await rt.stopAll()
  }
  assert.equal(await labelled(runId), 0)
})

testNeeding(
  "cpu exec (engines on other hosts): the counter read inside the container is the cgroup file's value at that moment",
  { id: 'integration/docker', missing },
  async () => {
    const runId = newRunId('exec-cpu')
    const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records, cpu: 'exec' })
    try {
      const backend = await startBackend(rt, { cpus: '0', logDir: work, host: '127.0.0.11', name: 'exec-read' })
      const id = (backend.role as { containerId?: string }).containerId!
      const { cgroupCpuFile } = await import('../../lib/runtime/docker/cgroup.ts')
      const file = cgroupCpuFile(backend.role.pid)!
      const fromFile = () =>
        Number(
          readFileSync(file.path, 'utf8')
            .trim()
            .replace(/^[\s\S]*usage_usec (\d+)[\s\S]*$/, '$1'),
        ) * (file.v2 ? 1000 : 1)
      const before = fromFile()
      const read = await rt.cpuNs(backend.role)
      const after = fromFile()
      // The exec's sh and cat count in the container's cgroup: the read lies between the file's two values.
      assert.ok(before <= read && read <= after, `${before} <= ${read} <= ${after}`)
      assert.match(rt.cpuSource, /read inside the container by an exec$/)
      await docker().getContainer(id).kill()
      await backend.role.exited
      assert.ok((await rt.cpuNs(backend.role)) >= read, 'an exited container keeps its last value')
    } finally {
      await rt.stopAll()
    }
    assert.equal(await labelled(runId), 0)
  },
)

testNeeding('kill -9 of the harness: the next start removes what the killed run left', { id: 'integration/docker', missing }, async () => {
  const runId = newRunId('orphan')
  const script = join(work, 'orphan.mts')
  writeFileSync(
    script,
    `import { DockerRuntime } from ${JSON.stringify(join(repoRoot, 'lib/runtime/docker/runtime.ts'))}
const rt = new DockerRuntime(${JSON.stringify(runId)}, { images: JSON.parse(process.env.RECORDS!) })
await rt.start({ role: 'backend', name: 'orphan', argv: [${JSON.stringify(goBinaryPath('backend'))}, '-listen', '127.0.0.11:' + process.env.PORT], cpus: '0', logFile: ${JSON.stringify(join(work, 'orphan.log'))} })
console.log('started')
setInterval(() => {}, 1000)
`,
  )
  const port = await freePort('127.0.0.11')
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: repoRoot,
    env: { ...process.env, RECORDS: JSON.stringify(records), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('started') && resolve())
    child.once('exit', (c) => reject(new Error(`orphan script exited ${c}`)))
  })
  await waitForPort(port, { host: '127.0.0.11', timeoutMs: 10_000, what: 'orphan backend' })
  child.kill('SIGKILL')
  await new Promise((r) => child.once('exit', r))
  assert.equal(await labelled(runId), 1, 'the killed harness left its container')
  const removed = await cleanupStaleContainers()
  assert.ok(removed >= 1)
  assert.equal(await labelled(runId), 0, 'zero containers of the killed run remain')
})

testNeeding('bridge mode: a per-run network, the role reachable at its container address', { id: 'integration/docker', missing }, async () => {
  const runId = newRunId('bridge')
  const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records, network: 'bridge' })
  try {
    const port = 18080
    const role = await rt.start({
      role: 'backend',
      name: 'bridged',
      argv: [goBinaryPath('backend'), '-listen', `0.0.0.0:${port}`],
      cpus: '0',
      logFile: join(work, 'bridged.log'),
    })
    const addr = containerAddress(role)
    assert.match(addr ?? '', /^\d+\.\d+\.\d+\.\d+$/)
    assert.match(rt.networkMode, /^bridge \(proxybench-/)
    await waitForPort(port, { host: addr!, timeoutMs: 10_000, exited: role.exited, what: 'bridged backend' })
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: addr, port, path: '/' }, (res) => {
        let b = ''
        res.on('data', (d: Buffer) => (b += d))
        res.on('end', () => resolve(b))
      }).on('error', reject)
    })
    assert.equal(body, 'hello world')
  } finally {
    await rt.stopAll()
  }
  assert.equal(await labelled(runId), 0)
  assert.equal((await docker().listNetworks({ filters: { label: [`${LABEL_RUN}=${runId}`] } })).length, 0, 'the run network is removed')
})

testNeeding(
  'bridge mode: pooling cells (direct, pooled, unpooled), a handshake and a WebSocket cell through the unchanged cell code',
  { id: 'integration/docker', missing },
  async () => {
    assert.ok(records.length > 0, 'images built')
    const runId = newRunId('bridge-cells')
    const rt = new DockerRuntime(runId, { keysDir: join(work, 'certs'), images: records, network: 'bridge' })
    const out = join(work, 'bridge-cells')
    const ctx = { runtime: rt, runId, runDir: out, cpus: defaultCpuLayout(), profile: { name: 'test', repeats: 1, warmupS: 1, durationS: 1, tailS: 1 }, certs }
    const cellOf = (proxy: ProxyName, variant: Variant, series = 'pooling', connections = 50): CellPlan => {
      const stack = loadStack(proxy)
      const v = stack.versions.at(-1)!
      return { series, proxy, version: v.version, variant, keyType: 'ec256', connections, stack, stackVersion: v, template: templateFile(stack, variant) }
    }
    try {
      const direct = await measureClosed({ series: 'direct', proxy: 'direct', version: 'x', variant: 'direct', keyType: 'ec256', connections: 50 }, 0, ctx)
      assert.equal(direct.status, 'valid', direct.reason)
      // The proxies' own containers, addresses on the run's network; the rendered config listens on 0.0.0.0.
      for (const [proxy, variant] of [
        ['haproxy', 'pool-removed'],
        ['nginx', 'pool-added'],
      ] as const) {
        const m = await measureClosed(cellOf(proxy, variant), 0, ctx)
        console.log(
          `bridge cell ${proxy} ${variant}: ${m.status} ${m.proxy_cpu_us_per_req} µs/req, ${m.rps} rps, ${m.backend_conns_per_1k_req} conns/1k ${m.reason}`,
        )
        assert.equal(m.status, 'valid', `${proxy} ${variant}: ${m.reason}`)
        assert.ok(m.requests > 0 && m.proxy_cpu_us_per_req! > 0 && m.generator_cpu_share! > 0)
        // Unpooled: one backend connection per request also through the bridge (ports are not exhausted).
        if (variant === 'pool-removed') assert.ok(m.backend_conns_per_1k_req! >= 900, `${m.backend_conns_per_1k_req}`)
        else assert.ok(m.backend_conns_per_1k_req! <= 50, `${m.backend_conns_per_1k_req}`)
        const config = readFileSync(join(out, 'configs', `${proxy}-${m.version}-${variant}.${loadStack(proxy).config_ext}`), 'utf8')
        assert.match(config, /0\.0\.0\.0:\d+/)
      }
      const hs = await measureHandshakes(cellOf('haproxy', 'pool-added', 'tls-handshake', 2), 0, ctx)
      assert.equal(hs.status, 'valid', hs.reason)
      assert.ok(hs.handshakes > 0 && hs.proxy_cpu_us_per_handshake! > 0)
      const ws = await measureEcho(cellOf('haproxy', 'ws', 'ws-echo', 20), 0, ctx)
      assert.equal(ws.status, 'valid', ws.reason)
      assert.ok(ws.messages > 0 && ws.conns_established === 20)
      console.log(`bridge: direct ${direct.rps} rps; handshake ${hs.proxy_cpu_us_per_handshake} µs; ws echo ${ws.proxy_cpu_us_per_msg} µs/msg`)
    } finally {
      await rt.stopAll()
    }
    assert.equal(await labelled(runId), 0)
  },
)

testNeeding(
  'official images: pull from a registry on 127.0.0.1 with digest; a missing tag is one line, not a hang',
  { id: 'integration/docker', missing },
  async (t) => {
    if (!existsSync('/usr/bin/docker-registry')) {
      if (!isRoot()) return skipNeeding(t, 'integration/docker', 'Debian docker-registry is not installed (apt-get install docker-registry)')
      const r = await aptInstall(['docker-registry'], memoryLogger())
      if (!r.ok) return skipNeeding(t, 'integration/docker', `cannot install docker-registry: ${r.error}`)
    }
    const dir = join(work, 'registry')
    mkdirSync(join(dir, 'data'), { recursive: true })
    const port = await freePort()
    writeFileSync(join(dir, 'config.yml'), `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'data')}\nhttp:\n  addr: 127.0.0.1:${port}\n`)
    const registry = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' })
    try {
      await waitForPort(port, { timeoutMs: 10_000, what: 'docker-registry' })
      // A tiny image of one file, pushed into the registry, then removed locally.
      const src = join(dir, 'tiny')
      mkdirSync(src)
      writeFileSync(join(src, 'hello'), 'hello world\n')
      const ref = `127.0.0.1:${port}/proxybench-test/tiny:1`
      const tar = await exec('tar', ['-C', src, '-cf', join(dir, 'tiny.tar'), 'hello'])
      assert.equal(tar.code, 0)
      const { createReadStream } = await import('node:fs')
      const imported = await docker().importImage(createReadStream(join(dir, 'tiny.tar')), {
        repo: `127.0.0.1:${port}/proxybench-test/tiny`,
        tag: '1',
      } as object)
      await new Promise((res, rej) => docker().modem.followProgress(imported, (e: Error | null) => (e ? rej(e) : res(null))))
      const push = await docker()
        .getImage(ref)
        .push({ authconfig: { username: '', password: '', serveraddress: `127.0.0.1:${port}` } } as object)
      await new Promise((res, rej) =>
        docker().modem.followProgress(push, (e: Error | null, out: { error?: string }[]) =>
          e || out.find((o) => o.error) ? rej(e ?? new Error(out.find((o) => o.error)!.error)) : res(null),
        ),
      )
      await docker().getImage(ref).remove()

      assert.equal((await registryAnswers(ref, 5000)).answers, true)
      const log = memoryLogger()
      const pulled = await pullImage(ref, log)
      assert.match(pulled.id, /^sha256:/)
      assert.match(pulled.digest ?? '', /^sha256:[0-9a-f]{64}$/)
      assert.ok(
        log.lines.some((l) => l.startsWith(`pulling ${ref} [`)),
        'a progress line',
      )

      const t0 = Date.now()
      await assert.rejects(pullImage(`127.0.0.1:${port}/proxybench-test/tiny:missing`, memoryLogger()), (e: Error) => {
        assert.doesNotMatch(e.message, /\n/)
        assert.match(e.message, /^pull of 127\.0\.0\.1:\d+\/proxybench-test\/tiny:missing failed: .*(not found|unknown)/i)
        return true
      })
      assert.ok(Date.now() - t0 < 15_000, 'a missing tag fails fast')
      // Nothing listens: "does not answer" quickly, so auto falls back to offline.
      const dead = await freePort()
      const t1 = Date.now()
      assert.equal((await registryAnswers(`127.0.0.1:${dead}/x:1`, 5000)).answers, false)
      assert.ok(Date.now() - t1 < 6000)
      await docker()
        .getImage(ref)
        .remove()
        .catch(() => {})
    } finally {
      registry.kill('SIGTERM')
      await sleep(100)
    }
  },
)
