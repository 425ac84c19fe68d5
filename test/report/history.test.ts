import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import { causeLine, historyArticle, historyPoints, historySources, writeHistoryPage, shortFingerprint, type HistorySource } from '../../lib/report/history.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'

/** The committed baselines (published and promoted) and the fixture run as a run of the site. */
function sources(): HistorySource[] {
  const empty = mkdtempSync(join(tmpdir(), 'pb-hist-'))
  const { sources, skipped } = historySources(empty)
  assert.deepEqual(skipped, [])
  return [...sources, { kind: 'run', id: 'quick2', run: loadRun(FIXTURE_RUN) }]
}

test('history points: every source per proxy and group, in time order; transcribed figures have no interval', () => {
  const all = sources()
  assert.deepEqual(all.map((s) => `${s.kind} ${s.id}`).sort(), ['baseline 2026-11-30-quick-2core', 'run quick2', 'transcribed 2026-08-23'])
  const points = historyPoints(all)
  const nginx = points.filter((p) => p.group === 'variant pool-added' && p.proxy === 'nginx')
  assert.deepEqual(
    nginx.map((p) => p.source),
    ['2026-11-30-quick-2core', 'quick2'],
  )
  assert.ok(nginx.every((p) => p.raw && p.raw.lo <= p.raw.value && p.raw.value <= p.raw.hi))
  const transcribed = points.filter((p) => p.kind === 'transcribed')
  assert.deepEqual(transcribed.map((p) => `${p.group} ${p.proxy} ${p.raw!.value}`).sort(), ['handshake ec256 caddy 355', 'handshake rsa4096 traefik 4827'])
  assert.ok(transcribed.every((p) => p.date === '2026-08-23' && p.raw!.method === 'single repeat'))
  // One point per proxy, group and source: the newest version measured there.
  const keys = points.map((p) => `${p.group}|${p.proxy}|${p.source}`)
  assert.equal(new Set(keys).size, keys.length)
  // The promoted baseline has no fingerprint: its short fingerprint says it is the host's words only.
  assert.match(nginx[0]!.machine, /^[0-9a-f]{8} \(host only\)$/)
  assert.match(nginx[1]!.machine, /^[0-9a-f]{8}$/)
  assert.equal(shortFingerprint(loadRun(FIXTURE_RUN).manifest), nginx[1]!.machine)
})

test('cause lines: version, config, machine and its reference, counts and cost, each read from the data', () => {
  const points = historyPoints(sources())
  const [a, b] = points.filter((p) => p.group === 'variant pool-removed' && p.proxy === 'nginx')
  const line = causeLine(a!, b!)
  assert.match(
    line,
    /^version \S+ (kept|→ \S+); config: catalog template \(no custom config hash\); machine [0-9a-f]{8} \(host only\) → [0-9a-f]{8} \(a side has no fingerprint\); conns\/1k held \(\d+ → \d+\); no other counts recorded on both; cost not compared \(another machine: its change is measured in pairs\)$/,
  )
  // A count column another engineer adds is read where both sides have it.
  const withCounts = causeLine(
    { ...a!, counts: { proxy_syscalls_per_req: 10 } },
    { ...b!, counts: { proxy_syscalls_per_req: 12 }, connsPer1k: (a!.connsPer1k ?? 0) + 500 },
  )
  assert.match(withCounts, /conns\/1k moved \d+ → \d+; syscalls\/req ×1\.2; cost/)
  const t = points.find((p) => p.kind === 'transcribed' && p.proxy === 'caddy')!
  const next = points.find((p) => p.group === t.group && p.proxy === 'caddy' && p.kind !== 'transcribed')!
  assert.match(
    causeLine(t, next),
    /^version \(not stated\) → \S+; machine: the article's, not this harness's \(a transcribed figure\); cost not compared \(another machine: its change is measured in pairs\)$/,
  )
})

test('history page: a chart of counts per group with its CSV, a table per group, transcribed points marked; written atomically into the site', async () => {
  // The fixture run as a run that counted system calls (runs before the counts have none: no chart).
  const all = sources().map((s) =>
    s.kind === 'run' ? { ...s, run: { ...s.run, measurements: s.run.measurements.map((r) => ({ ...r, proxy_syscalls_per_req: 6.2 })) } } : s,
  )
  const h = historyArticle(historyPoints(all), all, [])
  assert.ok(h.charts.length > 0)
  assert.match(historyArticle(historyPoints(sources()), sources(), []).markdown, /\*No chart: no point of .* records system calls per request/)
  const groups = [...new Set(historyPoints(all).map((p) => p.group))]
  // One section per group, after the chain of pairs (test/report/history-chain.test.ts).
  assert.equal(h.markdown.match(/^## /gm)?.length, groups.length + 1)
  for (const c of h.charts) {
    assert.match(c.path, /^history\/charts\/history-[a-z0-9-]+\.svg$/)
    const csv = c.path.replace('history/charts/', 'history/data/charts/').replace(/\.svg$/, '.csv')
    assert.ok(h.files.some((f) => f.path === csv) && h.markdown.includes(`](${csv})`), csv)
  }
  assert.match(h.markdown, /2026\\-08\\-23 \*\*transcribed\*\*/)
  assert.match(h.markdown, /\| what changed since the point before \|/)
  // Raw µs of different runs are never drawn on one axis: the charts draw counts, which carry over.
  assert.match(h.markdown, /Raw CPU µs per request do not, not even between two runs on one machine/)
  for (const c of h.charts) {
    assert.match(c.title, /^System calls per request, /)
    for (const r of c.rows as { y: number }[]) assert.ok(r.y < 100, `${c.path}: ${r.y} is a count per request, not µs`)
  }
  assert.equal(h.markdown.match(/\*Counts, not cost:\*/g)?.length, h.charts.length)
  const site = mkdtempSync(join(tmpdir(), 'pb-hist-site-'))
  const page = await writeHistoryPage(site, memoryLogger(), 'test')
  const html = readFileSync(page, 'utf8')
  assert.equal(page, join(site, 'history.html'))
  // Every link and image is a file of the site (the index itself is written after the history by buildReport).
  const targets = [...html.matchAll(/(?:href|src)="([^"#:]+)"/g)].map((m) => m[1]!).filter((t) => t !== 'index.html')
  assert.ok(targets.length > 0, "the page links its tables' CSVs")
  for (const t of targets) assert.ok(existsSync(join(site, t)), t)
})
