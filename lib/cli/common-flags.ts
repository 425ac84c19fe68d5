import { PROFILES } from '../catalog/profiles.ts'
import { PROXIES } from '../catalog/stack.ts'
import type { FlagDef, FlagTable } from './flags.ts'

/**
 * The flags many commands take, each written once: its type, value name and meaning. A
 * notebook's or bench's flagTable spreads the ones it takes, each with that command's default
 * in words: `...commonFlags({ proxies: 'haproxy,nginx' })`; a table that checks the value adds
 * its `default` and `check` to `sharedFlag(name, …)` (lib/cli/run-flags.ts). docs/cli.md shows
 * what each command's --help prints.
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
} as const satisfies FlagTable

export type CommonFlag = keyof typeof COMMON_FLAGS

/** A shared entry as a command has it: its help lines are that command's. */
export type Shared<K extends CommonFlag> = Omit<(typeof COMMON_FLAGS)[K], 'help'> & { help: readonly string[] }

/** A command's words for a shared flag: its default (`quick`), or the default and further help lines. */
export type FlagWords = string | readonly [string, ...string[]] | undefined

/** One shared entry with this command's default in its help: `(default quick)` after its last line, further lines under it. */
export function sharedFlag<K extends CommonFlag>(name: K, words?: FlagWords): Shared<K> {
  const base: FlagDef = COMMON_FLAGS[name]
  const [dflt, ...more] = typeof words === 'string' ? [words] : (words ?? [])
  const help = [...(base.help ?? [])]
  if (dflt) help[help.length - 1] = `${help[help.length - 1]} (default ${dflt})`
  return { ...base, help: [...help, ...more] } as unknown as Shared<K>
}

/** The shared entries a command takes, by name, with its words for each: spread into its flagTable. */
export function commonFlags<const W extends Partial<Record<CommonFlag, FlagWords>>>(words: W): { [K in keyof W & CommonFlag]: Shared<K> } {
  return Object.fromEntries(Object.entries(words).map(([name, w]) => [name, sharedFlag(name as CommonFlag, w)])) as { [K in keyof W & CommonFlag]: Shared<K> }
}
