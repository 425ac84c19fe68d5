import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The CPU counter file of the cgroup a (container's) process is in: v1 cpuacct or v2 cpu.stat. */
export function cgroupCpuFile(pid: number): { path: string; v2: boolean } | null {
  try {
    const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')
    const v1 = lines.find((l) => /^\d+:[^:]*\bcpuacct\b[^:]*:/.test(l))
    if (v1) {
      const rel = v1.slice(v1.indexOf(':', v1.indexOf(':') + 1) + 1)
      for (const mount of ['/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/cpuacct,cpu']) {
        if (existsSync(join(mount, rel, 'cpuacct.usage'))) return { path: join(mount, rel, 'cpuacct.usage'), v2: false }
      }
    }
    const v2 = lines.find((l) => l.startsWith('0::'))
    if (v2 && existsSync(join('/sys/fs/cgroup', v2.slice(3), 'cpu.stat'))) return { path: join('/sys/fs/cgroup', v2.slice(3), 'cpu.stat'), v2: true }
  } catch {}
  return null
}
