import { join } from 'node:path'
import { repoRoot } from '../core/paths.ts'

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
    join(c.root ?? repoRoot, 'notebooks/run-all.mjs'),
    ...['--profile', c.profile, '--series', c.series, '--seed', String(c.seed), '--out', c.out, '--no-report'],
    ...flags,
    ...(c.extra ?? []),
    ...(c.resume ? ['--resume'] : []),
  ]
}
