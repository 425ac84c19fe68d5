import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { applyPortSysctls, hostNetns, netnsOf, PORT_SYSCTLS, sysctlIn } from '../../lib/runtime/network.ts'
import { testNeeding } from '../support/needs.ts'

// A real network namespace of its own (unshare -n) gets the port settings, and the host's
// keeps its own: the settings are namespaced, so a run never changes the machine's.

/** Why this machine cannot make a network namespace, or false. */
function namespaceMissing(): string | false {
  if (process.getuid?.() !== 0) return 'not root: a network namespace needs CAP_SYS_ADMIN'
  for (const tool of ['unshare', 'nsenter', 'sysctl']) if (spawnSync('which', [tool]).status !== 0) return `${tool} missing (apt-get install util-linux procps)`
  const probe = spawnSync('unshare', ['-n', 'true'], { encoding: 'utf8' })
  return probe.status === 0 ? false : `unshare -n fails here: ${probe.stderr.trim() || `exit ${probe.status}`}`
}

const hostValue = (key: string) =>
  readFileSync(`/proc/sys/${key.replaceAll('.', '/')}`, 'utf8')
    .trim()
    .replace(/\s+/g, ' ')

testNeeding(
  "a namespace of the run's own gets TIME_WAIT reuse and the wide port range; the host's is left as it was",
  { id: 'integration/network', missing: namespaceMissing() },
  async () => {
    const before = Object.fromEntries(Object.keys(PORT_SYSCTLS).map((k) => [k, hostValue(k)]))
    const own = spawn('unshare', ['-n', 'sleep', '30'], { stdio: 'ignore' })
    try {
      const pid = own.pid!
      // unshare enters the namespace, then execs sleep under the same pid.
      for (let i = 0; i < 100 && netnsOf(pid) === netnsOf('self'); i++) await new Promise((r) => setTimeout(r, 20))
      assert.notEqual(netnsOf(pid), netnsOf('self'))
      assert.match(applyPortSysctls(pid), /^net:\[\d+\]: net\.ipv4\.tcp_tw_reuse=1, net\.ipv4\.ip_local_port_range=1024 65535$/)
      for (const [key, value] of Object.entries(PORT_SYSCTLS)) assert.equal(sysctlIn(pid, key), value, key)
      for (const [key, value] of Object.entries(before)) assert.equal(hostValue(key), value, `the host's ${key}`)
      // The harness in the host's namespace (native roles share it): left alone.
      if (netnsOf('self') === hostNetns()) assert.equal(applyPortSysctls(process.pid), "TCP settings left as they are: it is the host's network namespace")
      for (const [key, value] of Object.entries(before)) assert.equal(hostValue(key), value, `the host's ${key}`)
    } finally {
      own.kill('SIGKILL')
    }
  },
)
