import { compareVersions } from '../catalog/stack.ts'

/**
 * What a `--like` run actually repeated of its baseline, read from the rows of both (not
 * from the flags it was given): per row series of the baseline, the versions each proxy ran
 * there and here. The comparison section prints its sentence from this.
 */
export interface LikeRepetition {
  /** Row series whose every proxy ran the baseline's versions, and only those. */
  same: string[]
  /** One line per series and proxy that ran other versions, or did not run. */
  differences: string[]
  /** Row series of the baseline with no row in this run. */
  missing: string[]
}

type Row = { series: string; proxy: string; version: string }
interface Tables {
  measurements: readonly Row[]
  handshakes: readonly Row[]
  websocket: readonly Row[]
}

/** series → proxy → versions, of every row (invalid ones too: they ran). */
function versionsBySeries(t: Tables): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>()
  for (const r of [...t.measurements, ...t.handshakes, ...t.websocket]) {
    if (r.proxy === 'direct') continue // the direct row's version is the backend's source hash
    const byProxy = out.get(r.series) ?? new Map<string, Set<string>>()
    byProxy.set(r.proxy, (byProxy.get(r.proxy) ?? new Set()).add(r.version))
    out.set(r.series, byProxy)
  }
  return out
}

const list = (vs: Set<string> | undefined) => (vs?.size ? [...vs].sort(compareVersions).join(', ') : 'none')

export function likeRepetition(base: Tables, run: Tables): LikeRepetition {
  const b = versionsBySeries(base)
  const r = versionsBySeries(run)
  const out: LikeRepetition = { same: [], differences: [], missing: [] }
  for (const [series, proxies] of b) {
    const here = r.get(series)
    if (!here) {
      out.missing.push(series)
      continue
    }
    let same = true
    for (const [proxy, versions] of proxies) {
      const ran = here.get(proxy)
      const equal = ran !== undefined && ran.size === versions.size && [...versions].every((v) => ran.has(v))
      if (equal) continue
      same = false
      out.differences.push(`${series}: ${proxy} ${list(versions)} in the baseline, ${ran ? list(ran) : 'not run'} in this run`)
    }
    if (same) out.same.push(series)
  }
  return out
}
