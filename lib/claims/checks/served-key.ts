/**
 * served_key: what a proxy served when given no certificate (default-keys.csv, tls series phase
 * tls-default-key), against a key type: a figure id whose value names one, or the word itself.
 * Reads no cells: no select, for_each, metric.
 */
import { z } from 'zod'
import { DEFAULT_KEY_SERIES, keyTypeWords } from '../../data/default-keys.ts'
import { FIGURE_ID } from '../expr.ts'
import type { SchemaParts } from '../selectors.ts'
import { missingUnit, type CheckDef, type Ctx, type State, type Unit } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('served_key'), ...p.common, proxy: p.proxy, want: z.string().min(1) }).strict()

export type ServedKeyCheck = z.infer<ReturnType<typeof schema>>

export const servedKey: CheckDef<ServedKeyCheck, ReturnType<typeof schema>> = {
  kind: 'served_key',
  schema,
  reads: (k) => `${k.proxy}'s rows of default-keys.csv`,
  needsMetric: false,
  validate(k, issue, o) {
    if (FIGURE_ID.test(k.want) && !o.figures.has(k.want)) issue(['want'], `unknown figure id "${k.want}" (figure ids are the ids in figures.yaml)`)
  },
  units(k, _item, ctx) {
    return [servedKeyUnit(k, ctx)]
  },
}

/**
 * served_key: the key a proxy served when given no certificate (its valid default-keys rows),
 * against a key type (a figure's value in the harness's words, or the word). Holds when every
 * valid row served it, fails when every one served another, undecided when the rows disagree;
 * not measured without a valid row (a run without the tls series' tls-default-key phase).
 */
function servedKeyUnit(k: ServedKeyCheck, ctx: Ctx): Unit {
  const figure = ctx.figures.get(k.want)
  const want = keyTypeWords(String(figure ? figure.value : k.want))
  const rows = ctx.defaultKeys.filter((r) => r.series === DEFAULT_KEY_SERIES && r.proxy === k.proxy)
  const valid = rows.filter((r) => r.status === 'valid' && r.served_key !== '')
  if (valid.length === 0) {
    const why = rows.length
      ? `${rows.length} default-key row${rows.length === 1 ? '' : 's'} of ${k.proxy}, none valid (${[...new Set(rows.map((r) => r.reason))].join('; ')})`
      : `no default-key probe of ${k.proxy} in this run (tls series, phase ${DEFAULT_KEY_SERIES})`
    return missingUnit([why], [])
  }
  const served = [...new Set(valid.map((r) => r.served_key))]
  const r0 = valid[0]!
  const what = `${k.proxy} ${r0.version} given no certificate served ${served.join(' / ')} (${r0.key_algorithm}${r0.key_bits ? ` ${r0.key_bits} bit` : ''}${r0.curve ? ` ${r0.curve}` : ''}, issuer ${r0.issuer || 'none'}; ${valid.length} handshake${valid.length === 1 ? '' : 's'}, ${r0.tool})`
  const state: State = served.length > 1 ? 'undecided' : served[0] === want ? 'holds' : 'fails'
  return { state, text: `${what}; wanted ${want}`, used: [] }
}
