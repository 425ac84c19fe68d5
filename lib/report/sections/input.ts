import type { Aggregates } from '../../analysis/summary.ts'
import type { ClaimResult } from '../../claims/evaluate.ts'
import type { LatencySpectrumEntry } from '../../data/latency.ts'
import type { BisectPlan } from '../../data/bisect.ts'
import type { RunData } from '../../data/run-data.ts'
import type { Finding } from '../../findings/types.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import type { LikeRecord } from '../../data/like.ts'
import type { LikeRepetition } from '../../analysis/like-repeat.ts'
import type { PublishedDelta } from '../../analysis/published.ts'
import type { PairedCell } from '../../analysis/pairs.ts'
import type { ThenSides } from '../../data/then.ts'

export type { Finding }

/** What the article shows of a baseline: deltas per cell (a promoted run) or per figure (published). */
export type BaselineComparison =
  | {
      id: string
      kind: 'run'
      title: string
      machine: string
      sameMachine: boolean
      /** fingerprintDiff(baseline, run); null when a side has no fingerprint recorded (named in missingFingerprint). */
      fingerprintDiff: string[] | null
      missingFingerprint: ('the baseline' | 'this run')[]
      /** The run was started with --like this baseline: the flags taken and what could not be repeated. */
      like?: LikeRecord
      /** With `like`: what the rows of both runs show was repeated (lib/analysis/like-repeat.ts). */
      repeated?: LikeRepetition
    }
  | { id: string; kind: 'published'; title: string; machine: string; sameMachine: false; deltas: PublishedDelta[] }

/** What the article has of a paired run (lib/report/build.ts readPairs). */
export interface PairsInput {
  sides: ThenSides
  /** The paired cells, against the --like baseline's tables when it could be read. */
  cells: PairedCell[]
  /** Why the machine's change is not known (the baseline could not be read); null: it was read. */
  baselineMissing: string | null
}

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
