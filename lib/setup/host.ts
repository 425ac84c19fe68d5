import { readFileSync } from 'node:fs'
import { availableParallelism, hostname, release, totalmem } from 'node:os'
import { exec } from '../core/exec.ts'
import { repoRoot } from '../core/paths.ts'

export function hostInfo() {
  const cpuinfo = (() => {
    try {
      return readFileSync('/proc/cpuinfo', 'utf8')
    } catch {
      return ''
    }
  })()
  return {
    cpu_model: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    cores: availableParallelism(),
    kernel: release(),
    memory_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    hostname: hostname(),
  }
}

/** The harness commit and whether the work tree differs from it (tracked changes or untracked files). */
export async function harnessState(): Promise<{ commit: string; dirty: boolean }> {
  const head = await exec('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: repoRoot })
  if (head.code !== 0) return { commit: 'unknown', dirty: false }
  // Untracked files count: a new, uncommitted source file changes what runs.
  const status = await exec('git', ['status', '--porcelain', '--untracked-files=normal'], { cwd: repoRoot })
  return { commit: head.stdout.trim(), dirty: status.stdout.trim() !== '' }
}

/** The harness commit, with `-dirty` when the work tree has changes (untracked files included). */
export async function harnessCommit(): Promise<string> {
  const s = await harnessState()
  return s.commit + (s.dirty ? '-dirty' : '')
}

/** First line of each tool's own version output. */
export async function toolVersions(): Promise<Record<string, string>> {
  const probes: [string, string, string[]][] = [
    ['wrk', 'wrk', ['--version']],
    ['openssl', 'openssl', ['version']],
    ['go', 'go', ['version']],
    ['valgrind', 'valgrind', ['--version']],
  ]
  const out: Record<string, string> = { node: process.version }
  for (const [name, cmd, args] of probes) {
    const r = await exec(cmd, args)
    out[name] = (r.stdout || r.stderr).split('\n')[0]!.trim()
  }
  return out
}
