import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { userError } from '../core/errors.ts'
import { displayPath, repoRoot } from '../core/paths.ts'
import { readManifest } from '../data/manifest.ts'

/** One run of notebooks/run-all.mjs by a bench: no report, its own seed and folder. */
export interface RunAllCall {
  profile: string
  series: string
  seed: string | number
  out: string
  /** The checkout whose run-all runs (a bench may run a modified copy); default this one. */
  root?: string
  /** Flags passed as they are (proxies, runtime, --like…); undefined values are left out. */
  flags?: Readonly<Record<string, string | undefined>>
  extra?: readonly string[]
  resume?: boolean
}

/** The argv of `npx` for a bench's run of run-all. */
export function runAllArgv(c: RunAllCall): string[] {
  const flags = Object.entries(c.flags ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [`--${k}`, v]))
  return [
    'zx',
    resolve(c.root ?? repoRoot, 'notebooks/run-all.mjs'),
    ...['--profile', c.profile, '--series', c.series, '--seed', String(c.seed), '--out', c.out, '--no-report'],
    ...flags,
    ...(c.extra ?? []),
    ...(c.resume ? ['--resume'] : []),
  ]
}

/** One run through run-all: reused when finished, resumed when begun; a failure is one line naming its folder. */
export function runStep(name: string, call: RunAllCall, env: NodeJS.ProcessEnv, started: number): void {
  const m = readManifest(call.out)
  if (m?.finished) {
    process.stdout.write(`${name}: done earlier, reused (${displayPath(call.out)})\n`)
    return
  }
  process.stdout.write(`${name}: ${displayPath(call.out)}${m ? ' (resumed)' : ''} · ${Math.round((Date.now() - started) / 1000)} s elapsed\n`)
  // From the caller's folder, where its relative paths (--out, --config, the baselines folder) were given; a copy's run-all by its path.
  const r = spawnSync('npx', runAllArgv({ ...call, resume: !!m }), { stdio: 'inherit', env })
  if (r.status !== 0)
    throw userError(
      displayPath(call.out),
      `run-all exited ${r.status ?? r.signal}`,
      'Fix what it printed, then run this again: finished runs are reused, this one resumes',
    )
}

/** Promotes a finished run as baseline `id` into the baselines folder `env` names, unless it is there. */
export function promoteOnce(runDir: string, id: string, env: NodeJS.ProcessEnv): void {
  if (existsSync(join(env.PROXYBENCH_BASELINES_DIR ?? '', id, 'manifest.json'))) return
  const p = spawnSync('npx', ['zx', join(repoRoot, 'notebooks/promote.mjs'), runDir, '--id', id], { stdio: 'inherit', cwd: repoRoot, env })
  if (p.status !== 0) throw userError(displayPath(runDir), `promote exited ${p.status}`, 'Fix what it printed, then run this again')
}
