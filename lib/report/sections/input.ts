import type { Aggregates } from '../../analysis/summary.ts'
import type { ClaimResult } from '../../claims/evaluate.ts'
import type { LatencySpectrumEntry } from '../../data/latency.ts'
import type { BisectPlan } from '../../data/bisect.ts'
import type { RunData } from '../../data/run-data.ts'
import type { Finding } from '../../findings/types.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import type { BaselineComparison } from './baseline.ts'
import type { PairsInput } from './pairs.ts'

export type { Finding }

/** What the article is built from. Pure data: the sections read nothing else. */
export interface ArticleInput {
  run: RunData
  aggregates: Aggregates
  findings: Finding[]
  claims: ClaimResult[]
  baseline?: BaselineComparison
  /** A run made --like a baseline: its pairs (then beside now in one run); absent: the run has no then side. */
  pairs?: PairsInput
  /** Per-second series of open-model runs from raw/ (absent when only CSVs are there). */
  openSeries: OpenSeries[]
  /** Latency spectra from raw/ (absent or empty: none recorded, or only CSVs are there). */
  latency?: LatencySpectrumEntry[]
  /** Whether documentation predicts a backend pool for a cell (undefined: no prediction). */
  documentedReuse: (proxy: string, variant: string, version: string) => boolean | undefined
  /** The run's bisect plan (bisect.json), when it holds a bisect. */
  bisect?: BisectPlan
}

/** One open-model run's per-second series (rate, virtual users, p99), read from raw/. */
export interface OpenSeries {
  proxy: string
  key_type: string
  series: string
  target_rps: number
  repeat: number
  points: { t: number; rate: number; vus: number; p99_ms: number }[]
}

/** One section of the article: appends itself to the builder and returns the charts it shows. */
export type Section = (a: Article, input: ArticleInput) => ChartRequest[]
