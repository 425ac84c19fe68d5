import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { getProfile } from '../catalog/profiles.ts'
import { parseProxyList, PROXIES } from '../catalog/stack.ts'
import { placeholders, TEMPLATE_NAMES } from '../catalog/template.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { defaultSeries, isSeriesName, SERIES, type SeriesName } from '../data/series.ts'
import { defaultCpuLayout, parseCpuOverride } from '../roles/cpus.ts'
import { REFERENCE_KINDS, type ReferenceKind } from '../measure/reference.ts'
import { RUNTIME_KINDS, type RunOptions, type RuntimeChoice } from '../run/options.ts'
import { NETWORK_MODES, type NetworkMode } from '../runtime/network.ts'
import { parseFocus } from '../series/focus.ts'
import { parsePinnedVersions, parseVersionChoice } from '../catalog/version-choice.ts'
import type { CustomConfig } from '../series/pooling.ts'
import { IMAGE_MODES, type ImageMode } from '../setup/images.ts'
import { parseCapacityOptions, type CapacityFlags } from './capacity-options.ts'
import { parseBisectMetric, type BisectFlags } from './bisect-options.ts'
import { parseHosts } from './hosts-options.ts'
import { parseSiteDir } from './site-dir.ts'

export { parseSiteDir }

/** The run flags as parsed from the command line: strings, unchecked. */
export interface RunFlags extends CapacityFlags, BisectFlags {
  profile?: string
  series?: string
  proxies?: string
  runtime?: string
  images?: string
  network?: string
  hosts?: string
  'accept-new-host-keys'?: boolean
  cpus?: string
  config?: string[]
  seed?: string
  out?: string
  resume?: boolean
  'allow-changes'?: boolean
  'no-counts'?: boolean
  site?: string
  variants?: string
  'key-types'?: string
  versions?: string
  'pin-versions'?: string
  repeats?: string
  duration?: string
  'wait-quiet'?: string
  'tax-ns'?: string
  reference?: string
}

export function parseSeries(value: string): SeriesName[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean)
  if (names.length === 0) throw userError('--series', `"${value}" names no series`, `Use a comma-separated list of: ${SERIES.join(', ')} (or leave --series out for all)`)
  for (const n of names) {
    if (!isSeriesName(n)) throw userError('--series', `unknown series "${n}"`, `Use a comma-separated list of: ${SERIES.join(', ')}`)
  }
  return names as SeriesName[]
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
function checkResume(resume: boolean | undefined, out: string | undefined): void {
  if (!resume) return
  if (!out) throw userError('--resume', 'needs the run to finish', 'Pass --out DIR of the interrupted run (results/<run-id>)')
  if (!existsSync(join(out, 'manifest.json'))) throw userError('--resume', `${out} holds no run (no manifest.json) to resume`, 'Pass --out DIR of the interrupted run (results/<run-id>), or drop --resume to start one there')
}

/**
 * `--network`: host (default) or bridge. Bridge needs containers: with `--runtime native`
 * it is an error before anything starts (auto is checked once it has chosen).
 */
export function parseNetwork(value: string | undefined, runtime: string): NetworkMode {
  const mode = value ?? 'host'
  if (!(NETWORK_MODES as readonly string[]).includes(mode)) throw userError('--network', `unknown mode "${mode}"`, `Use one of: ${NETWORK_MODES.join(', ')}`)
  if (mode === 'bridge' && runtime === 'native') throw userError('--network', 'bridge needs the docker runtime (native roles share the host network)', 'Use --runtime docker, or drop --network')
  return mode as NetworkMode
}

function parseRuntime(value: string | undefined): RuntimeChoice {
  const kind = value ?? 'auto'
  if (!(RUNTIME_KINDS as readonly string[]).includes(kind)) throw userError('--runtime', `unknown runtime "${kind}"`, 'Use auto, docker or native')
  return kind as RuntimeChoice
}

function parseImages(value: string | undefined): ImageMode {
  const mode = value ?? 'offline'
  if (!(IMAGE_MODES as readonly string[]).includes(mode)) throw userError('--images', `unknown mode "${mode}"`, `Use one of: ${IMAGE_MODES.join(', ')}`)
  return mode as ImageMode
}

/** `--tax-ns N`: ns per system call; what the launcher's longest filter cannot reach is capped and said (manifest.syscall_tax.note). */
export function parseTaxNs(value: string | undefined, hosts: boolean): number | undefined {
  if (value === undefined) return undefined
  const ns = Number(value)
  if (!(value.trim() !== '' && Number.isInteger(ns) && ns >= 1 && ns <= 50_000)) throw userError(`--tax-ns ${value}`, 'not a tax in ns per system call', 'Use a whole number from 1 to 50000, e.g. --tax-ns 2000')
  if (hosts) throw userError('--tax-ns', 'the tax\'s launcher is bind-mounted from this machine: not with --hosts', 'Drop --tax-ns or --hosts')
  return ns
}

/** `--reference`: the workload measured beside every window (lib/measure/reference.ts). */
export function parseReference(value: string | undefined, hosts: boolean): ReferenceKind {
  const kind = value ?? 'none'
  if (!(REFERENCE_KINDS as readonly string[]).includes(kind)) throw userError(`--reference ${value}`, 'unknown reference', `Use one of: ${REFERENCE_KINDS.join(', ')}`)
  if (kind !== 'none' && hosts) throw userError('--reference', 'the reference runs on this machine\'s cores: with --hosts the proxy is elsewhere', 'Drop --reference or --hosts')
  return kind as ReferenceKind
}

function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const seed = Number(value)
  if (!(value.trim() !== '' && Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31)) throw userError(`--seed ${value}`, 'not a seed', 'Use an integer from 0 to 2147483647 (the manifest records the one used)')
  return seed
}

function parseOut(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const dir = resolve(value)
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw userError('--out', `${value} is a file`, 'Give a directory for the run (it is created when absent)')
  return dir
}

/** In bridge mode a user's config must listen on {{listen_host}}: loopback inside a container is unreachable. */
function checkCustomForBridge(custom: CustomConfig[]): void {
  for (const c of custom) {
    if (!placeholders(readFileSync(c.file, 'utf8')).includes('listen_host')) {
      throw userError(c.file, 'does not use {{listen_host}}; with --network bridge the proxy must listen on its container address, not on loopback', 'Listen on {{listen_host}}:{{listen_port}} (see docs/catalog.md#config-templates), or use --network host')
    }
  }
}

/** --hosts places the roles on Docker engines: only with the docker runtime, host networking, and cpusets in the topology. */
function checkHostsFlags(f: RunFlags, runtime: string, network: NetworkMode): void {
  if (runtime === 'native') throw userError('--hosts', 'needs the docker runtime (each role runs on its host\'s engine)', 'Use --runtime docker (or leave --runtime out), or drop --hosts')
  if (network === 'bridge') throw userError('--hosts', 'a bridge network does not span hosts', 'Drop --network bridge: roles on several hosts use each host\'s network')
  if (f.cpus) throw userError('--cpus', 'with --hosts each role\'s cpuset is its host\'s', 'Give cpuset=LIST per role in --hosts (or the topology file), or drop --cpus')
}

/** `--repeats N` / `--duration S` override the profile's minimum repeats and window (recorded in the manifest's profile_settings); `--wait-quiet S` its quiet budget. */
export function profileWithOverrides(name: string, f: { repeats?: string; duration?: string; 'wait-quiet'?: string }): RunOptions['profile'] {
  const p = getProfile(name)
  const whole = (flag: string, v: string, max: number, what: string) => {
    const n = Number(v)
    if (!(v.trim() !== '' && Number.isInteger(n) && n >= 1 && n <= max)) throw userError(`${flag} ${v}`, `not ${what}`, `Use a whole number from 1 to ${max}`)
    return n
  }
  const repeats = f.repeats === undefined ? p.repeats : whole('--repeats', f.repeats, 100, 'a number of repeats')
  const durationS = f.duration === undefined ? p.durationS : whole('--duration', f.duration, 3600, 'a window in seconds')
  const waitQuiet = f['wait-quiet']
  if (waitQuiet !== undefined && !(waitQuiet.trim() !== '' && Number(waitQuiet) >= 0 && Number(waitQuiet) <= 86400)) throw userError(`--wait-quiet ${waitQuiet}`, 'not a number of seconds', 'Use seconds from 0 (never wait: redo disturbed windows at once) to 86400')
  // More minimum repeats than the profile's maximum: the maximum follows (adaptive rounds never go below the minimum).
  return { ...p, repeats, durationS, ...(p.maxRepeats !== undefined ? { maxRepeats: Math.max(p.maxRepeats, repeats) } : {}), ...(waitQuiet !== undefined ? { quietBudgetS: Number(waitQuiet) } : {}) }
}

/** Every run flag into typed options, checked before anything is installed, written or measured. */
export function parseRunOptions(f: RunFlags, o: { install: boolean; log: Logger; fixedSeries?: SeriesName[] }): RunOptions {
  const runtime = parseRuntime(f.runtime)
  const network = parseNetwork(f.network, runtime)
  if (f['accept-new-host-keys'] && f.hosts === undefined) throw userError('--accept-new-host-keys', 'only means something with --hosts (ssh:// engines)', 'Add --hosts, or drop --accept-new-host-keys')
  const hosts = parseHosts(f.hosts, process.env, { acceptNewHostKeys: !!f['accept-new-host-keys'] })
  if (hosts) checkHostsFlags(f, runtime, network)
  const custom = parseCustomConfigs(f.config ?? [])
  if (network === 'bridge') checkCustomForBridge(custom)
  const out = parseOut(f.out)
  checkResume(f.resume, out)
  if (f['allow-changes'] && !f.resume) throw userError('--allow-changes', 'only means something with --resume', 'Add --resume --out DIR, or drop --allow-changes')
  parseSiteDir(f.site)
  const proxies = f.proxies !== undefined ? parseProxyList(f.proxies) : [...PROXIES]
  const series = o.fixedSeries ?? parseSeries(f.series ?? defaultSeries(f.profile ?? 'quick').join(','))
  // UDP between hosts is not measured yet (docs/series/h3.md#runtimes): refused before anything runs, not a row per cell.
  if (hosts && series.includes('h3')) throw userError('--hosts', 'the h3 series (QUIC over UDP) does not run across hosts yet', 'Run h3 on one machine: drop --hosts, or leave h3 out of --series')
  return {
    profile: profileWithOverrides(f.profile ?? 'quick', f),
    series,
    proxies,
    runtime,
    images: parseImages(f.images),
    network,
    ...(hosts ? { hosts } : {}),
    cpus: f.cpus ? parseCpuOverride(f.cpus, defaultCpuLayout()) : defaultCpuLayout(),
    custom,
    focus: parseFocus({ variants: f.variants, keyTypes: f['key-types'] }, proxies, custom.map((c) => c.file)),
    ...(f.versions !== undefined ? { versions: parseVersionChoice(f.versions, proxies) } : {}),
    ...(f['pin-versions'] !== undefined ? { pinned: parsePinnedVersions(f['pin-versions']) } : {}),
    capacity: parseCapacityOptions(f, series),
    bisectMetric: parseBisectMetric(f, series),
    out,
    resume: !!f.resume,
    allowChanges: !!f['allow-changes'],
    ...(f['no-counts'] ? { counts: false } : {}),
    seed: parseSeed(f.seed),
    ...(f['tax-ns'] !== undefined ? { syscallTaxNs: parseTaxNs(f['tax-ns'], !!hosts) } : {}),
    reference: parseReference(f.reference, !!hosts),
    install: o.install,
    log: o.log,
  }
}
