import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/** Links to the run's own CSVs and manifest (each table links its own CSV where it is shown); in print, what is on the site only. */
export function dataSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  a.heading(2, 'Data')
  a.para(
    "Each table above links its CSV. The run's own files: [measurements.csv](data/measurements.csv)" +
      (run.handshakes.length ? ', [handshakes.csv](data/handshakes.csv)' : '') +
      (run.websocket.length ? ', [websocket.csv](data/websocket.csv)' : '') +
      ', [manifest.json](data/manifest.json), one row per measured repeat. The findings and the claims ledger with their intervals: ' +
      '[summary/findings.csv](data/summary/findings.csv), [summary/claims.csv](data/summary/claims.csv). Every column of every CSV, with its unit and meaning: ' +
      'the [data dictionary](data/README.md).',
  )
  // Last, so it names every part the sections above left to the site.
  a.siteOnlyList(`the run's page on the site (runs/${esc(run.manifest.run_id)}/index.html)`)
  return []
}
