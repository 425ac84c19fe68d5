import assert from 'node:assert/strict'
import { test } from 'node:test'
import { aggregate } from '../../../lib/analysis/summary.ts'
import { documentedReuse } from '../../../lib/catalog/reuse.ts'
import { loadBaseline } from '../../../lib/data/baselines.ts'
import type { RunData, RunTables } from '../../../lib/data/run-data.ts'
import type { ThenSide } from '../../../lib/data/then.ts'
import { buildArticle } from '../../../lib/report/article.ts'
import { compareWithBaseline, readPairs } from '../../../lib/report/build.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { renderMarkdown } from '../../../lib/report/render.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import type { PairsInput } from '../../../lib/report/sections/input.ts'
import { pairsSection } from '../../../lib/report/sections/pairs.ts'
import { HOSTILE } from '../../fixtures/hostile.ts'
import { synthetic, thenSide, workRow } from '../../fixtures/paired.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

const BASELINE = '2026-11-30-quick-2core'

const join = (a: RunTables, b: RunTables): RunTables => ({
  measurements: [...a.measurements, ...b.measurements],
  handshakes: [...a.handshakes, ...b.handshakes],
  websocket: [...a.websocket, ...b.websocket],
})

/**
 * Two proxies' synthetic pairs in one run, with the sides given, read through readPairs against
 * their baseline's tables; `nginxFailed`: nginx's then windows are failed rows (a side not runnable).
 */
function paired(sides: ThenSide[], o: { haproxyChange?: number; nginxRounds?: number; nginxFailed?: boolean; id?: string; missing?: boolean } = {}) {
  const h = synthetic({ cells: 6, rounds: 5, noise: 0.03, seed: 2, change: o.haproxyChange ?? 0.85, changed: [0, 1, 2, 3, 4, 5], baselineFactor: 1.3 })
  const n = synthetic({ cells: 3, rounds: o.nginxRounds ?? 5, noise: 0.03, seed: 4, proxy: 'nginx', baselineFactor: 1.3 })
  if (o.nginxFailed) n.run.paired.tables.measurements = n.run.paired.tables.measurements.map((r) => ({ ...r, status: 'failed' as const }))
  const id = o.id ?? BASELINE
  const run = { ...join(h.run, n.run), paired: { sides: { baseline: id, pair_same: false, sides }, tables: join(h.run.paired.tables, n.run.paired.tables) } }
  // The baseline given as the report loaded it; `missing`: one no baseline folder has, so readPairs must load it and fail.
  const given = { id: o.missing ? 'another' : id, dir: '', kind: 'run' as const, run: join(h.baseline, n.baseline) as RunData }
  return readPairs(run, given)!
}

const render = (pairs: PairsInput | undefined) => {
  const a = new Article()
  pairsSection(a, { pairs } as unknown as ArticleInput)
  // Markdown escapes read back as text, so the patterns below say what a reader sees.
  return { md: a.toString().replace(/\\(.)/g, '$1'), raw: a.toString(), files: a.files }
}

const NGINX_SUBSTITUTE = thenSide({
  proxy: 'nginx',
  how: 'substitute',
  note: "nginx 2.8.25: no archive has the baseline's build; today's stands in",
  configs: 'today',
})

test('paired section: a sentence per proxy first, the machine apart, then the cells, the code-path counts and which build ran as then', () => {
  const envoy = thenSide({ proxy: 'envoy', version: '1.40.0', now_version: '1.40.0', how: 'same build', note: 'envoy 1.40.0: then and now are the same build' })
  const { md, files } = render(paired([thenSide(), NGINX_SUBSTITUTE, envoy]))
  const lines = md.split('\n')
  assert.equal(lines[0], '## Then and now, measured side by side')
  // Answer first: haproxy's decided change with its interval, nginx's "no change" with what it could detect, envoy's same build.
  assert.match(
    lines[2]!,
    /^- haproxy 3\.0\.0 costs (\d+(\.\d)?)% less than 2\.8\.25 \[\d+(\.\d)?%, \d+(\.\d)?%\] per request, measured side by side in this run \(6 cells\)\.$/,
  )
  const [less, lo, hi] = lines[2]!.match(/[\d.]+(?=%)/g)!.map(Number) as [number, number, number]
  assert.ok(lo < less && less < hi && lo <= 15 && 15 <= hi, `15% planted, ${less} [${lo}, ${hi}]`)
  assert.match(
    lines[3]!,
    /^- nginx 3\.0\.0 against 2\.8\.25: no change \(±\d+% detectable at 80% power\) per request, measured side by side in this run \(3 cells; then is today's build of 2\.8\.25, standing in for the baseline's\)\.$/,
  )
  assert.equal(lines[4], "- envoy 1.40.0: today's build and configs are the baseline's, measured once: no change to measure.")
  // The machine: haproxy's cells only (nginx's then is a substitute, another build), the baseline recorded 1/1.3 of today.
  const machine = lines[6]!.match(
    /^On the same binaries this machine costs ([\d.]+)× baseline 2026-11-30-quick-2core's \[([\d.]+), ([\d.]+)\] \(range [\d.]+–[\d.]+, 6 cells; 3 cells left out, their then not the baseline's binary\)\.$/,
  )
  assert.ok(machine, lines[6])
  assert.ok(Number(machine[1]) > 1.1 && Number(machine[1]) < 1.5, machine[1])
  // The cells: both verdict words, the interval, what could be detected, the machine per cell.
  assert.match(md, /\| proxy \| cell \| measures \| then → now \| change \[95%\] \| verdict \| detectable at 80% power \| pairs \| machine \|/)
  assert.match(md, /\| haproxy \| v0 \(same\) \| time \| 2\.8\.25 → 3\.0\.0 \| −\d+% \[−\d+%, −\d+%\] \| cheaper \| ±\d+% \| 5 \| 1\.\d\d× \|/)
  assert.match(md, /\| nginx \| v1 \(same\) \| time \| 2\.8\.25 → 3\.0\.0 \| [^|]+ \| no change \| ±\d+% \| 5 \|/)
  // Counts: the code path side by side across machines (a pooled proxy's 0 conns/1k shown), timing within the run only.
  assert.match(md, /\| proxy \| cell \| conns\/1k now \| conns\/1k then \| conns\/1k baseline \| syscalls now \| syscalls then \| syscalls baseline \|/)
  assert.match(md, /\| haproxy \| v0 \(same\) \| 0 \| 0 \| 0 \| 6 \| 6 \| 6 \|/)
  assert.match(md, /Timing counts \(context switches, the user\/system split\) [^.]*compared within this run only/)
  const counts = files.find((f) => f.path === 'data/pairs-counts.csv')!.content.split('\n')[0]
  assert.match(counts!, /,ctx sw now,ctx sw then,user µs now,user µs then,sys µs now,sys µs then$/)
  assert.match(
    files.find((f) => f.path === 'data/pairs.csv')!.content.split('\n')[0]!,
    /^proxy,cell,table,measures,then → now,change \[95%\],now ÷ then,lo,hi,verdict/,
  )
  // Which build ran as then, and the warning on the substitute only.
  assert.match(md, /^- \*\*catalog\*\*: haproxy 2\.8\.25: the baseline's build/m)
  assert.match(
    md,
    /^- \*\*substitute\*\*: nginx 2\.8\.25: no archive has the baseline's build; today's stands in\. Then configs: today's templates \(the baseline kept none\)$/m,
  )
  assert.deepEqual(
    lines.filter((l) => l.startsWith('**Warning:**')),
    [
      "**Warning:** nginx 2.8.25: then is today's build of the baseline's version, not the baseline's binary: its change holds the two builds' difference too, and it is left out of the machine's change.",
    ],
  )
})

test('paired section: dearer, too few repeats, a side not runnable, an A/A run', () => {
  const nginx = thenSide({ proxy: 'nginx', how: 'not runnable', sha256: null, note: 'nginx 2.8.25: not runnable here' })
  const pairs = paired([thenSide(), nginx], { haproxyChange: 1.25, nginxFailed: true })
  const { md } = render(pairs)
  assert.match(md, /^- haproxy 3\.0\.0 costs \d+(\.\d)?% more than 2\.8\.25 \[/m)
  assert.match(md, /^- nginx 3\.0\.0: no change measured, the baseline's build of 2\.8\.25 does not run here\.$/m)
  // Its cells are there, without a pair; none of them had a machine's change to leave out.
  assert.match(md, /\| nginx \| v0 \(same\) \| time \| 2\.8\.25 → 3\.0\.0 \| — \| too few repeats \| — \| 0 \| — \|/)
  assert.match(md, /^On the same binaries this machine costs [\d.]+× .*, 6 cells\)\.$/m)
  assert.match(md, /^\*\*Warning:\*\* nginx 2\.8\.25: no build of the baseline's version runs here, so its cells have no pairs\.$/m)
  assert.doesNotMatch(md, /A\/A check/)
  // A side that ran but has too few rounds in every cell: too few repeats, said in its sentence.
  const few = render(paired([thenSide(), thenSide({ proxy: 'nginx' })], { nginxRounds: 1 })).md
  assert.match(few, /^- nginx 3\.0\.0 against 2\.8\.25: too few repeats to tell a change \(no cell has two paired rounds\)\.$/m)
  assert.match(few, /\| nginx \| v0 \(same\) \| time \| 2\.8\.25 → 3\.0\.0 \| — \| too few repeats \| — \| 1 \|/)
  // The same build, paired where its config changed since the baseline: the change is the config's, and the machine's is on the same binary.
  const config = render(paired([thenSide({ how: 'same build', version: '3.0.0' }), thenSide({ proxy: 'nginx' })], { haproxyChange: 1.25 })).md
  assert.match(
    config,
    /^- haproxy 3\.0\.0 costs \d+(\.\d)?% more than 3\.0\.0 \[[^\]]+\] per request, measured side by side in this run \(6 cells; the same build, run with the baseline's config where it changed\)\.$/m,
  )
  assert.match(config, /^On the same binaries this machine costs [\d.]+× .*, 9 cells\)\.$/m)
  const aa = { ...pairs, sides: { ...pairs.sides, pair_same: true } }
  assert.match(render(aa).md, /\*\*A\/A check\*\* \(--pair-same\): then is a copy of today's build/)
})

test('paired section: a proxy with counted work is read by its work, its time beside it, the recount of the baseline apart', () => {
  const h = synthetic({ cells: 3, rounds: 5, noise: 0.03, seed: 2, change: 0.85, changed: [0, 1, 2], baselineFactor: 1.3 })
  const now = [...h.run.measurements, workRow({ version: '3.0.0', value: 96_900, rel: 0.002 })]
  const then = [...h.run.paired.tables.measurements, workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })]
  const base = [...h.baseline.measurements, workRow({ version: '2.8.25', value: 100_100, rel: 0.002 })]
  const tables = (m: typeof now): RunTables => ({ measurements: m, handshakes: [], websocket: [] })
  const run = { ...tables(now), paired: { sides: { baseline: BASELINE, pair_same: false, sides: [thenSide()] }, tables: tables(then) } }
  const { md } = render(readPairs(run, { id: BASELINE, dir: '', kind: 'run', run: tables(base) as RunData }))
  assert.match(
    md,
    /^- haproxy 3\.0\.0 does 3\.\d% less work than 2\.8\.25 \[\d\.\d%, \d\.\d%\] per request, instructions counted in this run \(1 cell\); on this machine its time changed −\d+(\.\d)?% \[[^\]]+\], the machine's price of that work\.$/m,
  )
  assert.match(
    md,
    /^Baseline 2026-11-30-quick-2core's binaries counted again today: 1 cell, all agreeing with the baseline's own counts \(largest difference 0\.10%\)\.$/m,
  )
  assert.match(md, /\| haproxy \| article \(work\) \| work \| 2\.8\.25 → 3\.0\.0 \| −3\.1% \[[^|]+\| cheaper \| [^|]+\| 1 \| 0\.9990× \|/)
  // The machine's change reads the timed cells only.
  assert.match(md, /^On the same binaries this machine costs [\d.]+× .*, 3 cells\)\.$/m)
})

test('paired section: strings from the data are escaped', () => {
  const hostile = thenSide({ proxy: HOSTILE[0], version: HOSTILE[1], how: 'substitute', note: `${HOSTILE[0]} | ${HOSTILE[1]}` })
  const { raw } = render(paired([thenSide(), hostile], { id: HOSTILE[1] }))
  for (const s of HOSTILE) assert.ok(!raw.includes(s), `${s} is escaped`)
  // Rendered, they are text: no element from the data, no table cell split by its |.
  const { html } = renderMarkdown(raw)
  assert.ok(!html.includes('<script') && !html.includes('<img'), 'no markup from the data')
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; \| &quot;&gt;&lt;img/)
  assert.match(raw, /\*\*Warning:\*\* \\<script\\>alert\\\(1\\\)\\<\\\/script\\> /)
})

test("paired section: a baseline that cannot be read leaves the proxy's change and says why the machine's is not known", () => {
  const { md } = render(paired([thenSide(), NGINX_SUBSTITUTE], { id: 'no-such-baseline', missing: true }))
  assert.match(md, /^- haproxy 3\.0\.0 costs \d+(\.\d)?% less than 2\.8\.25/m)
  assert.match(md, /^The machine's change is not known: baseline no-such-baseline could not be read \(--baseline no-such-baseline: unknown baseline/m)
  assert.match(md, /\| haproxy \| v0 \(same\) \| time \| 2\.8\.25 → 3\.0\.0 \| −\d+% \[[^|]+\| cheaper \| ±\d+% \| 5 \| — \|/)
})

test('an unpaired run has no paired section, and readPairs gives none', () => {
  assert.equal(render(undefined).raw, '\n')
  const { run } = synthetic({ cells: 2, rounds: 2, noise: 0.03, seed: 1 })
  assert.equal(readPairs({ ...run, paired: undefined }), undefined)
})

test("a paired run's article: the sentences in the answer, no between-run dot plot, the baseline's costs said to hold the machine's drift", async () => {
  const run = loadRun(FIXTURE_RUN)
  const pairs = paired([thenSide(), NGINX_SUBSTITUTE])
  const input = {
    run,
    aggregates: await aggregate(run),
    findings: [],
    claims: [],
    baseline: compareWithBaseline(run, loadBaseline(BASELINE), []),
    openSeries: [],
    documentedReuse,
  }
  const { markdown, charts } = buildArticle({ ...input, pairs })
  const answer = markdown
    .split('\n')
    .find((l) => l.startsWith('haproxy 3'))!
    .replace(/\\(.)/g, '$1')
  assert.match(
    answer,
    /^haproxy 3\.0\.0 costs [\d.]+% less than 2\.8\.25 \[[^\]]+\] per request, measured side by side in this run \(6 cells\)\. nginx 3\.0\.0 /,
  )
  assert.match(answer, /On the same binaries this machine costs [\d.]+× baseline 2026-11-30-quick-2core's .*\. No series of this run produced findings\./)
  assert.doesNotMatch(answer, /Against the baseline, \d+ cells compared/)
  assert.ok(!charts.some((c) => c.path === 'charts/baseline.svg'), 'no between-run dot plot')
  assert.match(markdown, /^## Then and now, measured side by side$/m)
  assert.ok(markdown.indexOf('## Then and now') < markdown.indexOf('## Comparison with the baseline'))
  assert.match(markdown, /The comparison with this baseline is \[Then and now, measured side by side\]\(#then-and-now-measured-side-by-side\)/)
  // The same run unpaired compares nothing across runs: no dot plot, no cell counts, and it says how to pair.
  const unpaired = buildArticle(input)
  assert.doesNotMatch(unpaired.markdown, /Against the baseline, \d+ cells compared/)
  assert.ok(!unpaired.charts.some((c) => c.path === 'charts/baseline.svg'))
  assert.doesNotMatch(unpaired.markdown, /## Then and now/)
  assert.match(unpaired.markdown, /so no proxy is compared with the baseline/)
})
