import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testNeeding } from '../support/needs.ts'
import { loadStack, templateFile } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { startBackend } from '../../lib/roles/backend.ts'
import { loadgenRequests } from '../../lib/roles/loadgen.ts'
import { prepareProxy, startProxy } from '../../lib/roles/proxy.ts'
import { DockerRuntime } from '../../lib/runtime/docker/runtime.ts'
import { taxLauncher } from '../../lib/runtime/syscall-tax.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'

// The system-call tax on docker (--tax-ns, bench/year-later.mjs): the static launcher bind-mounted
// read-only into unchanged images, in front of each entrypoint. Skipped (with the reason)
// only when no engine answers and none can be started.
let skip: string | false = false
try {
  await ensureDockerEngine(memoryLogger())
} catch (e) {
  skip = `no Docker engine: ${(e as Error).message}`
}

testNeeding(
  "under the syscall tax's launcher a real proxy, the backend and wrk run in their containers, filtered",
  { id: 'integration/docker-tax', missing: skip },
  async () => {
    const built = await ensureGoBuild('syscall-tax')
    assert.equal(built.error, undefined)
    for (const g of ['backend', 'loadgen'] as const) assert.equal((await ensureGoBuild(g)).error, undefined)
    const work = mkdtempSync(join(tmpdir(), 'pb-docker-tax-'))
    const certs = await ensureCerts(join(work, 'certs'), { force: false, log: memoryLogger() })
    const imgs = await ensureImages({ mode: 'offline', proxies: ['haproxy'], newestOnly: true, log: memoryLogger() })
    const rt = new DockerRuntime(`test-${process.pid}-tax`, {
      keysDir: join(work, 'certs'),
      images: imgs.records,
      launcher: taxLauncher({ insns: 2000 }, built.path),
    })
    const seccomp = (pid: number) => /^Seccomp:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    try {
      const backend = await startBackend(rt, { cpus: '0', logDir: work, host: '127.0.0.9' })
      const stack = loadStack('haproxy')
      const version = stack.versions.at(-1)!
      const prepared = await prepareProxy({
        stack,
        version,
        variant: 'pool-added',
        template: templateFile(stack, 'pool-added'),
        certs: certs.files.ec256,
        backend,
        threads: 1,
        runDir: join(work, 'haproxy-run'),
      })
      const proxy = await startProxy(rt, prepared, '1', certs.ca)
      const r = await loadgenRequests({ url: `https://127.0.0.1:${prepared.listenPort}/`, n: 200, c: 2, cacert: certs.ca, expectBody: 'hello world' })
      assert.equal(r.ok, r.requests, r.error_samples[0] ?? JSON.stringify(r.status))
      assert.deepEqual([seccomp(proxy.pid), seccomp(backend.role.pid)], ['2', '2'])
      const rawFile = join(work, 'wrk.txt')
      const gen = await rt.start({
        role: 'generator',
        name: 'wrk-tax',
        argv: ['wrk', '-t', '1', '-c', '4', '-d', '1s', '-s', join(repoRoot, 'stacks', 'wrk', 'report.lua'), `http://${backend.host}:${backend.port}/`],
        cpus: '0',
        logFile: rawFile,
      })
      assert.equal((await gen.exited).code, 0)
      assert.match(readFileSync(rawFile, 'utf8'), /^PROXYBENCH_JSON \{/m)
    } finally {
      await rt.stopAll()
    }
  },
)
