import type { SeriesName } from '../data/series.ts'
import { bisectSeries } from './bisect.ts'
import { capacitySeries } from './capacity.ts'
import { h2Series } from './h2.ts'
import { h3Series } from './h3.ts'
import { l4Series } from './l4.ts'
import { poolingSeries } from './pooling.ts'
import { resumptionSeries } from './resumption.ts'
import { scenariosSeries } from './scenarios.ts'
import { tlsSeries } from './tls.ts'
import type { Series } from './types.ts'
import { versionsSeries } from './versions.ts'
import { workSeries } from './work.ts'
import { wsSeries } from './ws.ts'

/** Each series' phases, built when the series starts; what the user chose for them comes in as ctx.plan (lib/series/plan.ts). */
export const SERIES_BUILDERS: Record<SeriesName, () => Series> = {
  pooling: () => poolingSeries(),
  work: () => workSeries(),
  tls: () => tlsSeries(),
  ws: () => wsSeries(),
  versions: () => versionsSeries(),
  scenarios: () => scenariosSeries(),
  capacity: () => capacitySeries(),
  l4: () => l4Series(),
  h2: () => h2Series(),
  h3: () => h3Series(),
  resumption: () => resumptionSeries(),
  bisect: () => bisectSeries(),
}
