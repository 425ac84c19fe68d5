import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { OpenSeries } from './article.ts'

// raw/<series>-<proxy>-<version>-<variant>-<key type>-c<conns>-<rate>rps-r<repeat>.open.json (lib/series/tls.ts)
const NAME = /^(tls-[a-z]+)-([a-z]+)-(.+)-([a-z0-9-]+)-(ec256|rsa2048|rsa4096)-c\d+-(\d+)rps-r(\d+)\.open\.json$/

/** The per-second series the open-model generator wrote to raw/; none when raw/ is absent. */
export function readOpenSeries(runDir: string): OpenSeries[] {
  const raw = join(runDir, 'raw')
  if (!existsSync(raw)) return []
  return readdirSync(raw).sort().flatMap((f) => {
    const m = NAME.exec(f)
    if (!m) return []
    try {
      const json = JSON.parse(readFileSync(join(raw, f), 'utf8')) as { series?: { t: number; rate: number; vus: number; p99_ms: number }[] }
      if (!Array.isArray(json.series)) return []
      return [{ series: m[1]!, proxy: m[2]!, key_type: m[5]!, target_rps: Number(m[6]), repeat: Number(m[7]), points: json.series.map(({ t, rate, vus, p99_ms }) => ({ t, rate, vus, p99_ms })) }]
    } catch {
      // A truncated file of an interrupted run: the CSV row says what happened.
      return []
    }
  })
}
