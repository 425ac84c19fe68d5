import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseProxyList, type ProxyName } from '../catalog/stack.ts'
import { getProfile } from '../catalog/profiles.ts'
import { userError } from '../core/errors.ts'

/** bench/load-model.mjs's flags, checked: run directories to read, and optionally one run to make first. */
export interface LoadModelOptions {
  dirs: string[]
  run: { profile: string; proxies: ProxyName[]; seed?: string; out?: string } | null
}

export interface LoadModelFlags {
  _: string[]
  measure?: boolean
  profile?: string
  proxies?: string
  seed?: string
  out?: string
}

const SCRIPT = 'bench/load-model.mjs'

export function parseLoadModelOptions(f: LoadModelFlags): LoadModelOptions {
  if (!f.measure) {
    for (const flag of ['profile', 'proxies', 'seed', 'out'] as const)
      if (f[flag] !== undefined) throw userError(SCRIPT, `--${flag} only goes with --measure`, `See: npx zx ${SCRIPT} --help`)
    if (f._.length === 0) throw userError(SCRIPT, 'no run directory given', `Name one or more run directories, or --measure to make one (see --help)`)
  }
  for (const d of f._)
    if (!existsSync(join(d, 'measurements.csv')))
      throw userError(d, 'no measurements.csv here: not a run directory', 'Give the directory a run wrote (its --out)')
  if (f.seed !== undefined && !/^\d+$/.test(f.seed)) throw userError('--seed', `"${f.seed}" is not a non-negative integer`, `See: npx zx ${SCRIPT} --help`)
  if (f.measure && f.out && existsSync(f.out)) throw userError('--out', `${f.out} exists`, 'A run never overwrites a directory: name a new one')
  return {
    dirs: f._,
    run: f.measure
      ? { profile: getProfile(f.profile ?? 'quick').name, proxies: parseProxyList(f.proxies ?? 'haproxy,nginx,caddy'), seed: f.seed, out: f.out }
      : null,
  }
}
