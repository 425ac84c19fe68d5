import { PROFILES } from '../catalog/profiles.ts'
import { PROXIES } from '../catalog/stack.ts'
import { SERIES } from '../data/series.ts'
import type { FlagDef, FlagTable } from './flags.ts'

/**
 * The flags more than one command takes, each written once: its type, value name and meaning
 * (test/cli/flags-once.test.ts fails on a name two tables declare). A notebook's or bench's
 * flagTable spreads the ones it takes, each with that command's words: its default, and lines
 * of its own under the meaning (`...commonFlags({ proxies: 'haproxy,nginx' })`); a table that
 * checks the value adds its `default` and `check` to `sharedFlag(name, …)` (lib/cli/run-flags.ts).
 * docs/cli.md shows what each command's --help prints.
 */
export const COMMON_FLAGS = {
  proxies: { type: 'string', arg: 'LIST', help: [`only these proxies, of ${PROXIES.join(',')}`] },
  profile: { type: 'string', arg: 'NAME', help: [`the profile: ${Object.keys(PROFILES).join(', ')}`] },
  out: { type: 'string', arg: 'DIR', help: ['where the output goes'] },
  baseline: {
    type: 'string',
    arg: 'ID',
    help: ['compare with baselines/runs/<ID> (a promoted run, or 2026-08-23: the', "seed article's quoted figures); CPU µs and ratios only, never RPS"],
  },
  site: { type: 'string', arg: 'DIR', help: ['the site folder'] },
  'no-pdf': { type: 'boolean', help: ['build the site but not the PDF'] },
  run: { type: 'string', arg: 'DIR', help: ['a run directory (results/<run-id>)'] },
  series: { type: 'string', arg: 'LIST', help: [`any of ${SERIES.join(',')}`] },
  variants: { type: 'string', arg: 'LIST', help: ['only these variants, e.g. article,pool-added'] },
  variant: { type: 'string', arg: 'LIST', help: ['the variants, each on its own: the same as --variants'] },
  'key-types': { type: 'string', arg: 'LIST', help: ['only the cells with these key types: ec256,rsa2048,rsa4096'] },
  versions: { type: 'string', arg: 'WHICH', help: ['catalog versions: all, newest, ends (oldest, newest, April 2025)', 'or a list (1.26.3,3.0.11)'] },
  runtime: { type: 'string', arg: 'KIND', help: ['native or docker'] },
  images: {
    type: 'string',
    arg: 'MODE',
    help: [
      'docker only: offline (build here from Debian packages and cached binaries),',
      'official (pull the tags listed under images: in stacks/<proxy>/stack.yaml, digests',
      'recorded) or auto (official when the registry answers within 5 s, else offline)',
    ],
  },
  repeats: { type: 'string', arg: 'N', help: ['repeats of each measurement'] },
  duration: { type: 'string', arg: 'S', help: ['measurement window in seconds'] },
  seed: { type: 'string', arg: 'N', help: ['order the repeats with this seed'] },
  runs: { type: 'string', arg: 'RUNS', help: ['the runs this bench makes'] },
  plant: { type: 'string', arg: 'N', help: ["the work planted in one proxy's article config, per request"] },
  'tax-ns': {
    type: 'string',
    arg: 'N',
    help: [
      'make every system call of every role about N ns dearer (a seccomp filter, measured',
      "on the proxy's core; docs/benchmarks.md#the-system-call-tax)",
    ],
  },
  check: { type: 'boolean', help: ['check only, changing nothing'] },
  force: { type: 'boolean', help: ['replace what already exists'] },
  json: { type: 'boolean', help: ['print the result as JSON on stdout'] },
} as const satisfies FlagTable

export type CommonFlag = keyof typeof COMMON_FLAGS

/** A shared entry as a command has it: its help lines are that command's. */
export type Shared<K extends CommonFlag> = Omit<(typeof COMMON_FLAGS)[K], 'help'> & { help: readonly string[] }

/** A command's words for a shared flag: its default (`'quick'`), or its default and the lines it adds under the meaning. */
export type FlagWords = string | { default?: string; more?: readonly string[] } | undefined

/** One shared entry with this command's words in its help: `(default quick)` after its last line, its own lines under it. */
export function sharedFlag<K extends CommonFlag>(name: K, words?: FlagWords): Shared<K> {
  const base: FlagDef = COMMON_FLAGS[name]
  const { default: dflt, more = [] } = typeof words === 'string' ? { default: words } : (words ?? {})
  const help = [...(base.help ?? [])]
  if (dflt) help[help.length - 1] = `${help[help.length - 1]} (default ${dflt})`
  return { ...base, help: [...help, ...more] } as unknown as Shared<K>
}

/** The shared entries a command takes, by name, with its words for each: spread into its flagTable. */
export function commonFlags<const W extends Partial<Record<CommonFlag, FlagWords>>>(words: W): { [K in keyof W & CommonFlag]: Shared<K> } {
  return Object.fromEntries(Object.entries(words).map(([name, w]) => [name, sharedFlag(name as CommonFlag, w)])) as { [K in keyof W & CommonFlag]: Shared<K> }
}
