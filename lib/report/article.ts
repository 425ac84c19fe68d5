import { methodSection, readingGuideSection } from './sections/method.ts'
import type { ChartRequest } from './chart-requests.ts'
import { Article, type TableFile } from './markdown.ts'
import { baselineSection } from './sections/baseline.ts'
import { capacitySection } from './sections/capacity.ts'
import { claimsSection } from './sections/claims.ts'
import { dataSection } from './sections/data.ts'
import { glanceSection } from './sections/glance.ts'
import type { ArticleInput, Section } from './sections/input.ts'
import { isolationSection } from './sections/isolation.ts'
import { latencySection } from './sections/latency.ts'
import { openModelSection } from './sections/open-model.ts'
import { poolDefaultsSection } from './sections/pool-defaults.ts'
import { poolingSection } from './sections/pooling.ts'
import { workSection } from './sections/work.ts'
import { reproduceSection } from './sections/reproduce.ts'
import { scenariosSection } from './sections/scenarios.ts'
import { setupSection } from './sections/setup.ts'
import { detailsSection } from './sections/title.ts'
import { answerSection } from './sections/answer.ts'
import { picturesSection } from './sections/pictures.ts'
import { pairsSection } from './sections/pairs.ts'
import { changesFromPublished } from './baseline-changes.ts'
import { tlsSection } from './sections/tls.ts'
import { versionsSection } from './sections/versions.ts'
import { bisectSection } from './sections/bisect.ts'
import { websocketSection } from './sections/websocket.ts'
import { l4Section } from './sections/l4.ts'
import { h2Section, resumptionSection } from './sections/protocols.ts'
import { h3Section } from './sections/h3.ts'

export interface BuiltArticle {
  markdown: string
  files: TableFile[]
  charts: ChartRequest[]
}

/** A section to look up, not to read through: on the site, named in the PDF's list of what it leaves out. */
const onSiteOnly =
  (what: string, section: Section): Section =>
  (a, input) => {
    const own = new Article()
    const charts = section(own, input)
    a.appendSiteOnly(what, own)
    return charts
  }

/**
 * The details, in the seed article's order (docs/report.md): findings in full, setup and
 * fairness, defaults, the three pooling series, isolation, TLS, open model, versions,
 * WebSocket, claims ledger, then and now (a paired run), baseline, how to reproduce, data.
 * One file per section in sections/.
 */
const DETAILS: readonly Section[] = [
  detailsSection,
  readingGuideSection,
  glanceSection,
  setupSection,
  poolDefaultsSection,
  poolingSection,
  workSection,
  isolationSection,
  tlsSection,
  onSiteOnly('TLS session resumption', resumptionSection),
  openModelSection,
  capacitySection,
  latencySection,
  versionsSection,
  bisectSection,
  websocketSection,
  scenariosSection,
  onSiteOnly('HTTP/2 from the client', h2Section),
  onSiteOnly('HTTP/3', h3Section),
  onSiteOnly('L4 (TCP) proxying', l4Section),
  claimsSection,
  pairsSection,
  (a, input) => baselineSection(a, input.baseline, input.pairs !== undefined),
  methodSection,
  reproduceSection,
  dataSection,
]

/**
 * Pure: data in, Markdown + the tables' CSVs + chart requests out. The answer first (title,
 * what the run found, the verdict table), then a picture per claim, then the details after a
 * page break (docs/report.md#answer-first). The pictures and details are built first so the
 * verdict table links only to headings that are there.
 */
export function buildArticle(input: ArticleInput): BuiltArticle {
  const pictures = new Article()
  const pictureCharts = picturesSection(pictures, input)
  const details = new Article()
  const detailCharts = DETAILS.flatMap((section) => section(details, input))
  const b = input.baseline
  // A run baseline's comparison is the pairs (the answer says them); a published one's, its figures.
  const changes = b?.kind === 'published' ? changesFromPublished(b.deltas) : null
  const a = new Article()
  answerSection(a, input, [...pictures.headings, ...details.headings], changes)
  a.append(pictures).append(details)
  return { markdown: a.toString(), files: a.files, charts: [...pictureCharts, ...detailCharts] }
}
