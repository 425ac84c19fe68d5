import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { OpenSeries } from './sections/input.ts'
import { parseRawName } from '../data/raw-files.ts'

/** The per-second series the open-model generator wrote to raw/; none when raw/ is absent. */
export function readOpenSeries(runDir: string): OpenSeries[] {
  const raw = join(runDir, 'raw')
  if (!existsSync(raw)) return []
  return readdirSync(raw)
    .sort()
    .flatMap((f) => {
      const m = parseRawName(f)
      if (m?.kind !== 'open.json' || m.rate === null || !m.series.startsWith('tls-')) return []
      try {
        const json = JSON.parse(readFileSync(join(raw, f), 'utf8')) as { series?: { t: number; rate: number; vus: number; p99_ms: number }[] }
        if (!Array.isArray(json.series)) return []
        return [
          {
            series: m.series,
            proxy: m.proxy,
            key_type: m.keyType,
            target_rps: m.rate,
            repeat: m.repeat,
            points: json.series.map(({ t, rate, vus, p99_ms }) => ({ t, rate, vus, p99_ms })),
          },
        ]
      } catch {
        // A truncated file of an interrupted run: the CSV row says what happened.
        return []
      }
    })
}
