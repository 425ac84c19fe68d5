import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { getProfile } from '../catalog/profiles.ts'
import { parseProxyList } from '../catalog/stack.ts'
import { placeholders, TEMPLATE_NAMES } from '../catalog/template.ts'
import { userError } from '../core/errors.ts'
import { whole } from './capacity-options.ts'
import { SERIES, type SeriesName } from '../data/series.ts'
import { RUNTIME_KINDS, type RunOptions, type RuntimeChoice } from '../run/options.ts'
import { NETWORK_MODES, type NetworkMode } from '../runtime/network.ts'
import { parseNames } from '../core/names.ts'
import type { CustomConfig } from '../series/plan.ts'
import { IMAGE_MODES, type ImageMode } from '../setup/images/names.ts'

/*
 * Each run flag's own rule (lib/cli/run-flags.ts names them in its table): a value into what
 * the run takes, or one line naming the flag and the fix. Defaults come from the table.
 */

export function parseSeries(value: string): SeriesName[] {
  return parseNames('--series', value, SERIES, 'series') as SeriesName[]
}

/** `--config nginx=./my.conf` → a custom cell on that proxy's newest version. */
export function parseCustomConfigs(values: string[]): CustomConfig[] {
  return values.map((v) => {
    const [proxy, ...rest] = v.split('=')
    const file = rest.join('=')
    if (!proxy || !file) throw userError('--config', `cannot read "${v}"`, 'Write --config <proxy>=<path>, e.g. --config nginx=./my-nginx.conf')
    const [name] = parseProxyList(proxy, '--config')
    if (!existsSync(file)) throw userError('--config', `${file} does not exist`, 'Give the path of your config file')
    if (!statSync(file).isFile()) throw userError('--config', `${file} is not a file`, 'Give the path of your config file, not a directory')
    checkPlaceholders(file)
    return { proxy: name!, file: resolve(file) }
  })
}

/** A typo in a custom config's placeholders fails now, not after setup. */
function checkPlaceholders(file: string): void {
  const lines = readFileSync(file, 'utf8').split('\n')
  lines.forEach((line, i) => {
    const bad = placeholders(line).find((n) => !(TEMPLATE_NAMES as readonly string[]).includes(n))
    if (bad !== undefined) throw userError(`${file}:${i + 1}`, `unknown template variable {{${bad}}}`, `Use one of: ${TEMPLATE_NAMES.join(', ')}`)
  })
}

/** `--resume` finishes the run in --out: there must be one. */
export function checkResume(resume: boolean | undefined, out: string | undefined): boolean {
  if (!resume) return false
  if (!out) throw userError('--resume', 'needs the run to finish', 'Pass --out DIR of the interrupted run (results/<run-id>)')
  if (!existsSync(join(out, 'manifest.json')))
    throw userError(
      '--resume',
      `${out} holds no run (no manifest.json) to resume`,
      'Pass --out DIR of the interrupted run (results/<run-id>), or drop --resume to start one there',
    )
  return true
}

/**
 * `--network`: host or bridge. Bridge needs containers: with `--runtime native`
 * it is an error before anything starts (auto is checked once it has chosen).
 */
export function parseNetwork(mode: string, runtime: string): NetworkMode {
  if (!(NETWORK_MODES as readonly string[]).includes(mode)) throw userError('--network', `unknown mode "${mode}"`, `Use one of: ${NETWORK_MODES.join(', ')}`)
  if (mode === 'bridge' && runtime === 'native')
    throw userError('--network', 'bridge needs the docker runtime (native roles share the host network)', 'Use --runtime docker, or drop --network')
  return mode as NetworkMode
}

export function parseRuntime(kind: string): RuntimeChoice {
  if (!(RUNTIME_KINDS as readonly string[]).includes(kind)) throw userError('--runtime', `unknown runtime "${kind}"`, 'Use auto, docker or native')
  return kind as RuntimeChoice
}

export function parseImages(mode: string): ImageMode {
  if (!(IMAGE_MODES as readonly string[]).includes(mode)) throw userError('--images', `unknown mode "${mode}"`, `Use one of: ${IMAGE_MODES.join(', ')}`)
  return mode as ImageMode
}

/** `--tax-ns N`: ns per system call; what the launcher's longest filter cannot reach is capped and said (manifest.syscall_tax.note). */
export function parseTaxNs(value: string | undefined, hosts: boolean): number | undefined {
  if (value === undefined) return undefined
  const ns = Number(value)
  if (!(value.trim() !== '' && Number.isInteger(ns) && ns >= 1 && ns <= 50_000))
    throw userError(`--tax-ns ${value}`, 'not a tax in ns per system call', 'Use a whole number from 1 to 50000, e.g. --tax-ns 2000')
  if (hosts) throw userError('--tax-ns', "the tax's launcher is bind-mounted from this machine: not with --hosts", 'Drop --tax-ns or --hosts')
  return ns
}

export function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const seed = Number(value)
  if (!(value.trim() !== '' && Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31))
    throw userError(`--seed ${value}`, 'not a seed', 'Use an integer from 0 to 2147483647 (the manifest records the one used)')
  return seed
}

export function parseOut(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const dir = resolve(value)
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw userError('--out', `${value} is a file`, 'Give a directory for the run (it is created when absent)')
  return dir
}

/** In bridge mode a user's config must listen on {{listen_host}}: loopback inside a container is unreachable. */
export function checkCustomForBridge(custom: CustomConfig[]): void {
  for (const c of custom) {
    if (!placeholders(readFileSync(c.file, 'utf8')).includes('listen_host')) {
      throw userError(
        c.file,
        'does not use {{listen_host}}; with --network bridge the proxy must listen on its container address, not on loopback',
        'Listen on {{listen_host}}:{{listen_port}} (see docs/catalog.md#config-templates), or use --network host',
      )
    }
  }
}

/** `--repeats N` / `--duration S` override the profile's minimum repeats and window (recorded in the manifest's profile_settings); `--wait-quiet S` its quiet budget. */
export function profileWithOverrides(name: string, f: { repeats?: string; duration?: string; 'wait-quiet'?: string; like?: string }): RunOptions['profile'] {
  const named = getProfile(name)
  // A paired run (--like) takes the profile's paired rounds; --repeats and --duration still win.
  const p = f.like !== undefined && named.paired ? { ...named, ...named.paired } : named
  const repeats = f.repeats === undefined ? p.repeats : whole('--repeats', f.repeats, 1, 100, 'a number of repeats')
  const durationS = f.duration === undefined ? p.durationS : whole('--duration', f.duration, 1, 3600, 'a window in seconds')
  const waitQuiet = f['wait-quiet']
  if (waitQuiet !== undefined && !(waitQuiet.trim() !== '' && Number(waitQuiet) >= 0 && Number(waitQuiet) <= 86400))
    throw userError(`--wait-quiet ${waitQuiet}`, 'not a number of seconds', 'Use seconds from 0 (never wait: redo disturbed windows at once) to 86400')
  // More minimum repeats than the profile's maximum: the maximum follows (adaptive rounds never go below the minimum).
  return {
    ...p,
    repeats,
    durationS,
    ...(p.maxRepeats !== undefined ? { maxRepeats: Math.max(p.maxRepeats, repeats) } : {}),
    ...(waitQuiet !== undefined ? { quietBudgetS: Number(waitQuiet) } : {}),
  }
}
