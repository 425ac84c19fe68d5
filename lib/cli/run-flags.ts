import { PROFILES } from '../catalog/profiles.ts'
import { parseProxyList, PROXIES, type ProxyName } from '../catalog/stack.ts'
import { defaultVersionChoice, parsePinnedVersions, parseVersionChoice } from '../catalog/version-choice.ts'
import { loadBaseline } from '../data/baselines.ts'
import { DEFAULT_SERIES, defaultSeries } from '../data/series.ts'
import { defaultCpuLayout, parseCpuOverride } from '../roles/cpus.ts'
import type { RuntimeChoice } from '../run/options.ts'
import { PAIR_AT, type PairAt } from '../series/plan.ts'
import { userError } from '../core/errors.ts'
import { BISECT_FLAGS } from './bisect-options.ts'
import { CAPACITY_FLAGS } from './capacity-options.ts'
import { sharedFlag } from './common-flags.ts'
import { flagHelp, type FlagValues } from './flags.ts'
import { parseHosts } from './hosts-options.ts'
import { OUTCOME_FLAGS } from './report-outcome.ts'
import {
  checkResume,
  parseCustomConfigs,
  parseImages,
  parseNetwork,
  parseOut,
  parseRuntime,
  parseSeed,
  parseSeries,
  parseTaxNs,
  profileWithOverrides,
} from './run-checks.ts'
import { parseSiteDir } from './site-dir.ts'

/**
 * Every flag of run-all and the series steps, once (docs/running.md#run-all-flags): the parser,
 * the RunFlags type and the --help text come from this table; lib/cli/run-options.ts checks
 * the flags in their order and turns them into the run's options and its series plan.
 * A check's extra arguments are the other flags it depends on, passed by parseRunOptions.
 */
export const RUN_FLAGS = {
  profile: {
    ...sharedFlag('profile', { default: 'quick', more: ['quick: 2 repeats of short windows, standard: 3 to 12 × 5 s, full: 5 × 30 s'] }),
    default: 'quick',
    check: (name: string, overrides: { repeats?: string; duration?: string; 'wait-quiet'?: string; like?: string }) => profileWithOverrides(name, overrides),
  },
  series: {
    ...sharedFlag('series', {
      default: DEFAULT_SERIES.join(','),
      more: [
        'smoke leaves out h2 and work, quick runs one h2 cell a proxy, standard and full add h3;',
        'work = instructions per request counted under callgrind (notebooks/work.mjs, native runtime);',
        'versions = every catalog version, article and pool-added (smoke, quick: article);',
        'capacity = the highest open-model rate meeting --slo per proxy (notebooks/capacity.mjs);',
        'bisect = which catalog version of a proxy changed a variant (notebooks/bisect.mjs)',
      ],
    }),
    // The default depends on the profile (smoke leaves out h2 and work).
    check: (value: string | undefined, profile: string) => parseSeries(value ?? defaultSeries(profile).join(',')),
  },
  proxies: {
    ...sharedFlag('proxies', 'all five'),
    default: PROXIES.join(','),
    check: (value: string) => parseProxyList(value),
  },
  runtime: {
    ...sharedFlag('runtime', 'auto: docker when an engine answers, else native'),
    default: 'auto',
    check: (value: string) => parseRuntime(value),
  },
  images: {
    ...sharedFlag('images', 'offline'),
    default: 'offline',
    check: (value: string) => parseImages(value),
  },
  network: {
    type: 'string',
    arg: 'MODE',
    default: 'host',
    help: [
      'docker only: host (default; loopback, least overhead) or bridge (each role in its own',
      'container network namespace, the generator in its own container); an error with native',
    ],
    check: (value: string, runtime: RuntimeChoice) => parseNetwork(value, runtime),
  },
  hosts: {
    type: 'string',
    arg: 'SPEC',
    help: [
      'docker only: each role on its own Docker engine, e.g. "proxy=ssh://u@h1 backend=ssh://u@h2',
      'generator=tcp://h3:2376?certs=DIR", or a topology.yaml; see docs/hosts.md.',
      'ssh host keys must be in ~/.ssh/known_hosts (or known_hosts=FILE, fingerprint=SHA256:…',
      'per host): an unknown or changed key is refused (docs/hosts.md)',
    ],
    check: (value: string | undefined, acceptNewHostKeys: boolean) => parseHosts(value, process.env, { acceptNewHostKeys }),
  },
  'accept-new-host-keys': {
    type: 'boolean',
    help: ["with --hosts: record an ssh host key no known_hosts lists yet (as ssh's", 'StrictHostKeyChecking=accept-new); a changed key is still refused'],
    check: (value: boolean | undefined, hosts: string | undefined) => {
      if (value && hosts === undefined)
        throw userError('--accept-new-host-keys', 'only means something with --hosts (ssh:// engines)', 'Add --hosts, or drop --accept-new-host-keys')
      return !!value
    },
  },
  out: { ...sharedFlag('out', 'results/<run-id>: the run directory'), check: (value: string | undefined) => parseOut(value) },
  resume: {
    type: 'boolean',
    help: [
      'finish the run in --out, skipping repeats already measured; refused when a',
      "setting differs from the run's (profile, repeats, duration, proxies, cpus, runtime, network, seed, configs, pair-at)",
    ],
    check: (value: boolean | undefined, out: string | undefined) => checkResume(value, out),
  },
  'allow-changes': {
    type: 'boolean',
    help: ['with --resume: accept those differences (the manifest and report tell which rows came from which)'],
    check: (value: boolean | undefined, resume: boolean) => {
      if (value && !resume) throw userError('--allow-changes', 'only means something with --resume', 'Add --resume --out DIR, or drop --allow-changes')
      return !!value
    },
  },
  baseline: {
    ...sharedFlag('baseline'),
    check: (id: string | undefined) => (id ? loadBaseline(id) : undefined),
  },
  'no-report': { type: 'boolean', help: ['stop after the measurements and findings (no summary/, ledger, site or PDF)'] },
  'no-pdf': sharedFlag('no-pdf'),
  'strict-builds': {
    type: 'boolean',
    help: [
      'measure only pinned builds: a pinned build neither its source nor the archive has stops the run',
      '(exit 2) instead of being replaced by the newest build of the same version (docs/catalog.md#when-a-pin-moves)',
    ],
  },
  'no-counts': {
    type: 'boolean',
    help: [
      'do not count system calls and context switches per window (docs/method/counts.md):',
      'the count columns are then empty and say why (for measuring what counting costs)',
    ],
  },
  site: { ...sharedFlag('site', 'site/'), check: (value: string | undefined) => parseSiteDir(value) },
  seed: {
    ...sharedFlag('seed', 'random, recorded in the manifest'),
    check: (value: string | undefined) => parseSeed(value),
  },
  config: {
    type: 'string',
    multiple: true,
    arg: 'PROXY=PATH',
    help: ['also measure your own config file (repeatable); see docs/catalog.md#your-own-config'],
    check: (values: string[] | undefined) => parseCustomConfigs(values ?? []),
  },
  cpus: {
    type: 'string',
    arg: '"ROLE=LIST …"',
    help: ['cpusets, e.g. "proxy=1 backend=0 generator=0" (default from nproc)'],
    check: (value: string | undefined) => (value ? parseCpuOverride(value, defaultCpuLayout()) : defaultCpuLayout()),
  },
  // --variants and --key-types are checked together, against the proxies and configs (lib/series/focus.ts parseFocus).
  variants: sharedFlag('variants', {
    more: ['of the planned cells, in every series (custom:my.conf for a --config file); the direct', 'row always runs (the pooling floor)'],
  }),
  'key-types': sharedFlag('key-types'),
  versions: {
    ...sharedFlag('versions', {
      default: 'ends for smoke and quick, all for standard and full',
      more: ["of the versions series and nginx's all-version extras (npm run doctor lists the catalog)"],
    }),
    check: (value: string | undefined, proxies: readonly ProxyName[], profile: string) =>
      value !== undefined ? parseVersionChoice(value, proxies) : defaultVersionChoice(profile),
  },
  'pin-versions': {
    type: 'string',
    arg: 'LIST',
    help: [
      'proxy=version pairs (haproxy=2.8.25,nginx=1.31.3): the version each series that measures',
      'one version per proxy runs instead of the newest (pooling, tls, ws, scenarios, l4, h2…)',
    ],
    check: (value: string | undefined) => (value !== undefined ? parsePinnedVersions(value) : undefined),
  },
  // --repeats, --duration and --wait-quiet are checked with the profile they override (--profile's check).
  repeats: sharedFlag('repeats', { default: "the profile's", more: ['a minimum per cell (recorded in the manifest)'] }),
  duration: sharedFlag('duration', { default: "the profile's", more: ['(recorded in the manifest)'] }),
  'wait-quiet': {
    type: 'string',
    arg: 'S',
    help: [
      'seconds the run may lose to other work on the machine: after a disturbed window it waits',
      "until the bench's cores are quiet, then redoes the window in a later round (default per",
      `profile: ${Object.values(PROFILES)
        .map((p) => `${p.name} ${p.quietBudgetS}`)
        .join(', ')}; 0: never wait); docs/method/disturbance.md`,
    ],
  },
  ...CAPACITY_FLAGS,
  ...BISECT_FLAGS,
  like: {
    type: 'string',
    arg: 'ID',
    help: [
      'repeat a promoted baseline (baselines/runs/<id>): its profile, series, proxies, repeats,',
      "window, connections, variants and key types; today's version of each proxy (now) is measured",
      "beside the baseline's exact build and config (then) in the same rounds, and the report reads",
      'the pairs (docs/method/pairs.md); flags given beside it win',
    ],
  },
  'pair-same': {
    type: 'boolean',
    help: [
      'with --like: where then and now are the same build, measure it twice anyway (a copy of the',
      'binary as a second process): the A/A check of the pairing (docs/method/pairs.md#aa)',
    ],
    check: (value: boolean | undefined, like: string | undefined) => {
      if (value && like === undefined) throw userError('--pair-same', 'pairs a then side, which only --like has', 'Add --like BASELINE, or drop --pair-same')
      return !!value
    },
  },
  'pair-at': {
    type: 'string',
    arg: 'WHEN',
    help: [
      "with --like: when a pair's two sides are measured: instant (the default: a wrk cell's two",
      'stacks loaded together in one window) or adjacent (each a window of its own, next to the',
      'other in the round); docs/method/pairs.md#at-one-instant',
    ],
    check: (value: string | undefined, like: string | undefined): PairAt => {
      if (value !== undefined && !(PAIR_AT as readonly string[]).includes(value))
        throw userError(`--pair-at ${value}`, 'unknown moment', `Use one of: ${PAIR_AT.join(', ')}`)
      if (value !== undefined && like === undefined)
        throw userError('--pair-at', 'times a then side, which only --like has', 'Add --like BASELINE, or drop --pair-at')
      return (value as PairAt | undefined) ?? 'instant'
    },
  },
  'tax-ns': {
    ...sharedFlag('tax-ns'),
    check: (value: string | undefined, hosts: boolean) => parseTaxNs(value, hosts),
  },
  ...OUTCOME_FLAGS,
} as const

/** The run flags as parsed from the command line: strings, unchecked (the table's type). */
export type RunFlags = FlagValues<typeof RUN_FLAGS>

/** The run flags as parseFlags returns them. */
export type RunFlagValues = RunFlags & { _: string[] }

export const RUN_FLAGS_HELP = `${flagHelp(RUN_FLAGS)}

Exit status: 0 once the run completed (a finding that did not hold is a result), 2 for a bad flag
or input (one line, before anything runs), 3 when a --fail-on gate failed (everything is written first).`
