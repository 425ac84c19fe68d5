/**
 * served_key: a proxy's default key type (default-keys.csv, tls series phase tls-default-key)
 * against a key type: a figure id whose value names one, or the word itself. `source` says which
 * default: the key of the certificate it served when given none (`served certificate`, the
 * default), or the ACME resolver's default key type its binary's --help states (`acme default`).
 * Reads no cells: no select, for_each, metric.
 */
import { z } from 'zod'
import { ACME_DEFAULT_PROXIES, KEY_SOURCES, keyTypeWords, type DefaultKeyRow, type KeySource } from '../../data/default-keys.ts'
import { FIGURE_ID } from '../expr.ts'
import type { SchemaParts } from '../selectors.ts'
import { missingUnit, type CheckDef, type Ctx, type State, type Unit } from './check.ts'

const SOURCES = Object.keys(KEY_SOURCES) as [KeySource, ...KeySource[]]

const schema = (p: SchemaParts) =>
  z
    .object({ kind: z.literal('served_key'), ...p.common, proxy: p.proxy, want: z.string().min(1), source: z.enum(SOURCES).default('served certificate') })
    .strict()

export type ServedKeyCheck = z.infer<ReturnType<typeof schema>>

export const servedKey: CheckDef<ServedKeyCheck, ReturnType<typeof schema>> = {
  kind: 'served_key',
  schema,
  reads: (k) => `${k.proxy}'s ${k.source} rows of default-keys.csv`,
  needsMetric: false,
  validate(k, issue, o) {
    if (FIGURE_ID.test(k.want) && !o.figures.has(k.want)) issue(['want'], `unknown figure id "${k.want}" (figure ids are the ids in figures.yaml)`)
    if (k.source === 'acme default' && !(ACME_DEFAULT_PROXIES as readonly string[]).includes(k.proxy))
      issue(['source'], `only ${ACME_DEFAULT_PROXIES.join(', ')} states an ACME default key type in its --help, not ${k.proxy}`)
  },
  units(k, _item, ctx) {
    return [servedKeyUnit(k, ctx)]
  },
}

/**
 * served_key: the key type of a proxy's valid default-keys rows of the check's source, against a
 * key type (a figure's value in the harness's words, or the word). Holds when every valid row
 * names it, fails when every one names another, undecided when the rows disagree; not measured
 * without a valid row (a run without the tls series' tls-default-key phase).
 */
function servedKeyUnit(k: ServedKeyCheck, ctx: Ctx): Unit {
  const figure = ctx.figures.get(k.want)
  const want = keyTypeWords(String(figure ? figure.value : k.want))
  const series = KEY_SOURCES[k.source]
  const rows = ctx.defaultKeys.filter((r) => r.series === series && r.proxy === k.proxy)
  const valid = rows.filter((r) => r.status === 'valid' && r.served_key !== '')
  if (valid.length === 0) {
    const why = rows.length
      ? `${rows.length} ${k.source} row${rows.length === 1 ? '' : 's'} of ${k.proxy}, none valid (${[...new Set(rows.map((r) => r.reason))].join('; ')})`
      : k.source === 'acme default'
        ? `no ACME default read of ${k.proxy} in this run (tls series, phase tls-default-key, row series ${series})`
        : `no default-key probe of ${k.proxy} in this run (tls series, phase ${series})`
    return missingUnit([why], [])
  }
  const served = [...new Set(valid.map((r) => r.served_key))]
  const state: State = served.length > 1 ? 'undecided' : served[0] === want ? 'holds' : 'fails'
  return { state, text: `${(k.source === 'acme default' ? acmeWords : servedWords)(k.proxy, served, valid)}; wanted ${want}`, used: [] }
}

const reads = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

function servedWords(proxy: string, served: readonly string[], valid: readonly DefaultKeyRow[]): string {
  const r0 = valid[0]!
  const key = `${r0.key_algorithm}${r0.key_bits ? ` ${r0.key_bits} bit` : ''}${r0.curve ? ` ${r0.curve}` : ''}`
  return `${proxy} ${r0.version} given no certificate served ${served.join(' / ')} (${key}, issuer ${r0.issuer || 'none'}; ${reads(valid.length, 'handshake')}, ${r0.tool})`
}

function acmeWords(proxy: string, served: readonly string[], valid: readonly DefaultKeyRow[]): string {
  return `${proxy} ${valid[0]!.version} states an ACME default key type of ${served.join(' / ')} (acme.keytype Default; ${reads(valid.length, 'read')}, ${valid[0]!.tool})`
}
