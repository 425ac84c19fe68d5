import { documentedReuse } from '../catalog/reuse.ts'
import { evaluateClaims, type ClaimResult } from '../claims/evaluate.ts'
import { groupLines } from '../claims/groups.ts'
import { loadLedger, type Ledger } from '../claims/ledger.ts'
import type { BisectPlan } from '../data/bisect.ts'
import type { RunTables } from '../data/run-data.ts'
import { isSeriesName, POOLING_ROWS, type SeriesName } from '../data/series.ts'
import { bisectFindings } from './bisect.ts'
import { capacityFindings } from './capacity.ts'
import { poolingLines } from './pooling.ts'
import { scenarioFindings } from './scenarios.ts'
import { tlsFindings } from './tls.ts'
import type { Finding } from './types.ts'
import { versionFindings } from './versions.ts'

export type { Finding } from './types.ts'

/**
 * What a series' findings read beside the tables: the bisect's plan (bisect.json), and the
 * ledger and its results on this run (evaluated here when not given): the lines of F1..F8
 * that are groups of claims (baselines/published/findings.yaml) take their verdicts from them.
 */
export interface FindingInputs {
  bisect?: BisectPlan
  ledger?: Ledger
  claims?: readonly ClaimResult[]
}

type Lines = (t: RunTables, x: FindingInputs, groups: (series: SeriesName) => Finding[]) => Finding[]

/** Each series' findings from a run's rows: what run-all prints and the article shows. */
const BY_SERIES: Record<SeriesName, Lines> = {
  // F1, F2, F4, F7 from the ledger; F3's pit (a figure), the pool detector and the run's precision from the rows.
  pooling: (t, _, g) => {
    const [pit, ...checks] = poolingLines(
      t.measurements.filter((r) => POOLING_ROWS.includes(r.series)),
      documentedReuse,
    )
    // In finding order: F3's figure between the groups before it and those after.
    const lines = g('pooling')
    return [...lines.filter((f) => f.id < 'F3'), pit!, ...lines.filter((f) => f.id > 'F3'), ...checks]
  },
  // F5 from the ledger; F6 and the calibration from the open-model rows.
  tls: (t, _, g) => [...g('tls'), ...tlsFindings(t.measurements)],
  ws: (_t, _, g) => g('ws'),
  versions: (t) => versionFindings(t.measurements),
  scenarios: (t) => scenarioFindings(t.measurements),
  // L4 has no seed finding of its own: the report's L4 section states the HAProxy/nginx ratio, the ledger checks seed 004 on it.
  l4: () => [],
  // work has no seed finding: the report's work section states instructions per request beside µs per request.
  work: () => [],
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
  let ledger = inputs.ledger
  let claims = inputs.claims
  const groups = (s: SeriesName): Finding[] => {
    ledger ??= loadLedger()
    claims ??= evaluateClaims(ledger, { ...tables, ...(inputs.bisect && { bisect: inputs.bisect }) })
    return groupLines(ledger.findings ?? [], s, claims)
  }
  return series.filter(isSeriesName).flatMap((s) => BY_SERIES[s](tables, inputs, groups))
}
