import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadStack, templateFile } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir, repoRoot } from '../../lib/core/paths.ts'
import { startBackend } from '../../lib/roles/backend.ts'
import { prepareProxy, startProxy } from '../../lib/roles/proxy.ts'
import { DockerRuntime, type DockerRunningRole } from '../../lib/runtime/docker/runtime.ts'
import { COPY_PREFIX } from '../../lib/runtime/key-copies.ts'
import { procStartTime } from '../../lib/runtime/proc.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { dockerClient, engineInfo } from '../../lib/setup/docker-engine.ts'
import { ensureImages } from '../../lib/setup/images/ensure.ts'
import { testNeeding } from '../support/needs.ts'

// One container of each role, started through the runtime as a run starts it, then read
// back through the engine API: what the README promises about containers, asserted.
const info = await engineInfo().catch(() => null)
const skip = info ? false : 'no Docker engine answers (start one: npx zx notebooks/00-setup.mjs)'
if (skip) console.log(`hardening tests skipped: ${skip}`)

const work = mkdtempSync(join(tmpdir(), 'pb-hardening-'))
const root = process.getuid?.() === 0
const SOCKETS = ['/var/run/docker.sock', '/run/docker.sock']

/** Keys under certs/ another host user could read, and copies left behind (this run's, or a dead harness's). */
function exposedKeys(): string[] {
  const out: string[] = []
  for (const e of readdirSync(certsDir, { withFileTypes: true })) {
    const pid = Number(e.name.slice(COPY_PREFIX.length))
    // Another harness running now (a concurrent run) holds its own copies until it ends.
    if (e.name.startsWith(COPY_PREFIX)) {
      if (pid === process.pid || procStartTime(pid) === null) out.push(`${e.name}/ (a key copy left behind)`)
    } else if (e.isFile() && /\.(key|pem)$/.test(e.name) && (statSync(join(certsDir, e.name)).mode & 0o077) !== 0) out.push(e.name)
  }
  return out
}

testNeeding(
  'containers of every role: non-root, no capabilities, read-only root, no-new-privileges, no Docker socket; no key left readable',
  { id: 'integration/hardening', missing: skip },
  async () => {
    const imgs = await ensureImages({ mode: 'offline', proxies: ['haproxy'], newestOnly: true, log: memoryLogger() })
    const bad = imgs.rows.find((r) => r.status === 'failed')
    if (bad) return void assert.fail(`image ${bad.component} ${bad.version}: ${bad.note}`)
    // The repository's certs/, as a run uses them: private keys are copied for the container user.
    const certs = await ensureCerts(certsDir, { force: false, log: memoryLogger() })
    const rt = new DockerRuntime(`test-${process.pid}-hardening`, { images: imgs.records })
    const docker = dockerClient()
    const checked: string[] = []
    try {
      const backend = await startBackend(rt, { cpus: '0', logDir: work, host: '127.0.0.12' })
      const stack = loadStack('haproxy')
      const version = stack.versions.at(-1)!
      const prepared = await prepareProxy({
        stack,
        version,
        variant: 'article',
        template: templateFile(stack, 'article'),
        certs: certs.files.ec256,
        backend,
        threads: 1,
        runDir: join(work, 'haproxy-run'),
      })
      const proxy = await startProxy(rt, prepared, '1', certs.ca)
      const gen = await rt.start({
        role: 'generator',
        name: 'wrk',
        argv: ['wrk', '-t', '1', '-c', '2', '-d', '1s', '-s', join(repoRoot, 'stacks', 'wrk', 'report.lua'), `https://127.0.0.1:${prepared.listenPort}/`],
        cpus: '0',
        logFile: join(work, 'wrk.txt'),
      })
      if (root) assert.ok(readdirSync(certsDir).includes(`${COPY_PREFIX}${process.pid}`), 'the proxy runs on a key copy while it runs')
      for (const [role, r] of [
        ['backend', backend.role],
        ['proxy', proxy],
        ['generator', gen],
      ] as const) {
        const c = await docker.getContainer((r as DockerRunningRole).containerId).inspect()
        const [uid] = c.Config.User.split(':').map(Number)
        assert.ok(c.Config.User && uid !== 0, `${role}: user ${c.Config.User || '(image default: root)'}`)
        assert.deepEqual(c.HostConfig.CapDrop, ['ALL'], `${role}: CapDrop`)
        assert.deepEqual(c.HostConfig.CapAdd ?? [], [], `${role}: CapAdd`)
        assert.equal(c.HostConfig.Privileged, false, `${role}: privileged`)
        assert.equal(c.HostConfig.ReadonlyRootfs, true, `${role}: read-only root file system`)
        assert.ok(Object.keys(c.HostConfig.Tmpfs ?? {}).includes('/tmp'), `${role}: /tmp is a tmpfs`)
        assert.ok(
          (c.HostConfig.SecurityOpt ?? []).some((o: string) => /^no-new-privileges(:true)?$/.test(o)),
          `${role}: no-new-privileges`,
        )
        for (const m of c.Mounts) assert.ok(!SOCKETS.some((s) => m.Source === s || s.startsWith(m.Source + '/')), `${role}: mounts ${m.Source}`)
        for (const m of c.Mounts.filter((m) => m.RW)) assert.ok(m.Source.startsWith(work), `${role}: writable mount ${m.Source} outside its run dir`)
        // What the container's first process really has, read from the host's /proc.
        const status = readFileSync(`/proc/${c.State.Pid}/status`, 'utf8')
        const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim()
        assert.equal(field('Uid')?.split(/\s+/)[1], String(uid), `${role}: effective uid`)
        assert.equal(field('CapEff'), '0000000000000000', `${role}: effective capabilities`)
        assert.equal(field('CapBnd'), '0000000000000000', `${role}: bounding set`)
        assert.equal(field('NoNewPrivs'), '1', `${role}: NoNewPrivs`)
        checked.push(`${role} ${c.Config.User} caps=${c.HostConfig.CapDrop} ro=${c.HostConfig.ReadonlyRootfs} nnp mounts=${c.Mounts.length}`)
      }
      await gen.exited
    } finally {
      await rt.stopAll()
    }
    console.log(checked.join('\n'))
    assert.deepEqual(exposedKeys(), [], 'after the run: no key copy remains and no key under certs/ is readable by group or others')
  },
)
