import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import type { SeriesName } from '../data/series.ts'
import type { RunOptions } from '../run/options.ts'
import type { NetworkMode } from '../runtime/network.ts'
import { parseFocus } from '../series/focus.ts'
import { parseCapacityOptions } from './capacity-options.ts'
import { parseBisectMetric } from './bisect-options.ts'
import { flagChecker } from './flags.ts'
import { checkCustomForBridge } from './run-checks.ts'
import { RUN_FLAGS, type RunFlags } from './run-flags.ts'

export type { RunFlags } from './run-flags.ts'
export { parseCustomConfigs, parseNetwork, parseSeries, parseTaxNs } from './run-checks.ts'

/** --hosts places the roles on Docker engines: only with the docker runtime, host networking, and cpusets in the topology. */
function checkHostsFlags(f: RunFlags, runtime: string, network: NetworkMode): void {
  if (runtime === 'native')
    throw userError(
      '--hosts',
      "needs the docker runtime (each role runs on its host's engine)",
      'Use --runtime docker (or leave --runtime out), or drop --hosts',
    )
  if (network === 'bridge')
    throw userError('--hosts', 'a bridge network does not span hosts', "Drop --network bridge: roles on several hosts use each host's network")
  if (f.cpus)
    throw userError('--cpus', "with --hosts each role's cpuset is its host's", 'Give cpuset=LIST per role in --hosts (or the topology file), or drop --cpus')
}

/**
 * Every run flag into typed options, checked before anything is installed, written or
 * measured, each by its table entry (lib/cli/run-flags.ts), in this order: a flag that
 * depends on another is checked after it.
 */
export function parseRunOptions(f: RunFlags, o: { install: boolean; log: Logger; fixedSeries?: SeriesName[] }): RunOptions {
  const check = flagChecker(RUN_FLAGS, f)
  const runtime = check('runtime')
  const network = check('network', runtime)
  check('accept-new-host-keys', f.hosts)
  const hosts = check('hosts', !!f['accept-new-host-keys'])
  if (hosts) checkHostsFlags(f, runtime, network)
  const custom = check('config')
  if (network === 'bridge') checkCustomForBridge(custom)
  const out = check('out')
  const resume = check('resume', out)
  const allowChanges = check('allow-changes', resume)
  check('site')
  const proxies = check('proxies')
  const series = o.fixedSeries ?? check('series', f.profile ?? RUN_FLAGS.profile.default)
  const profile = check('profile', f)
  const images = check('images')
  const cpus = check('cpus')
  const focus = parseFocus(
    { variants: f.variants, keyTypes: f['key-types'] },
    proxies,
    custom.map((c) => c.file),
  )
  const versions = check('versions', proxies, profile.name)
  const pinned = check('pin-versions')
  const capacity = parseCapacityOptions(f, series)
  const bisectMetric = parseBisectMetric(f, series)
  return {
    profile,
    series,
    proxies,
    runtime,
    images,
    network,
    ...(hosts ? { hosts } : {}),
    cpus,
    plan: { custom, focus, versions, pinned, capacity, bisectMetric },
    out,
    resume,
    allowChanges,
    ...(f['no-counts'] ? { counts: false } : {}),
    ...(f['strict-builds'] ? { strictBuilds: true } : {}),
    seed: check('seed'),
    ...(f['tax-ns'] !== undefined ? { syscallTaxNs: check('tax-ns', !!hosts) } : {}),
    install: o.install,
    log: o.log,
  }
}
