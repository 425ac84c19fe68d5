import { documentedReuse } from '../catalog/reuse.ts'
import type { RunTables } from '../data/run-data.ts'
import { isSeriesName, POOLING_ROWS, type SeriesName } from '../data/series.ts'
import { capacityFindings } from './capacity.ts'
import { poolingFindings } from './pooling.ts'
import { scenarioFindings } from './scenarios.ts'
import { tlsFindings } from './tls.ts'
import type { Finding } from './types.ts'
import { versionFindings } from './versions.ts'
import { bisectFindings } from './bisect.ts'
import type { BisectPlan } from '../data/bisect.ts'
import { wsFindings } from './ws.ts'

export type { Finding } from './types.ts'

/** Each series' findings from a run's rows: what run-all prints and the article shows. */
/** What a series' findings read beside the tables: the bisect's plan (bisect.json). */
export interface FindingInputs {
  bisect?: BisectPlan
}

const BY_SERIES: Record<SeriesName, (t: RunTables, x: FindingInputs) => Finding[]> = {
  pooling: (t) =>
    poolingFindings(
      t.measurements.filter((r) => POOLING_ROWS.includes(r.series)),
      documentedReuse,
    ),
  // F5 compares full handshakes: the resumption series' rows (some resumed) stay out.
  tls: (t) =>
    tlsFindings(
      t.handshakes.filter((h) => h.series === 'tls-handshake'),
      t.measurements,
    ),
  ws: (t) => wsFindings(t.websocket),
  versions: (t) => versionFindings(t.measurements),
  scenarios: (t) => scenarioFindings(t.measurements),
  // L4 has no seed finding of its own: the report's L4 section states the HAProxy/nginx ratio, the ledger checks seed 004 on it.
  l4: () => [],
  // h2 and resumption neither: their report sections state the h2/h1 and resumed/full ratios with intervals.
  h2: () => [],
  // h3 likewise: the report's HTTP/3 section states h3/h2/h1 with intervals.
  h3: () => [],
  resumption: () => [],
  capacity: (t) => capacityFindings(t.measurements),
  bisect: (t, x) => bisectFindings(t.measurements, x.bisect),
}

/** Findings of the named series (unknown names are skipped), in the order given. */
export function findingsFor(tables: RunTables, series: readonly string[], inputs: FindingInputs = {}): Finding[] {
  return series.filter(isSeriesName).flatMap((s) => BY_SERIES[s](tables, inputs))
}
