/**
 * The year-later bench's figures (bench/year-later.mjs, docs/benchmarks.md#year-later): a
 * baseline run, then runs --like it (same binaries, a planted config cost, a taxed machine),
 * each read through its pairs (lib/analysis/pairs.ts) against issue 42's criteria.
 */
import {
  CODE_PATH_COUNTS,
  machineChange,
  type PairedCell,
  type PairedRun,
  pairedCells,
  POWER,
  type ProxyChange,
  proxyChanges,
  verdictText,
} from '../analysis/pairs.ts'
import { median } from '../core/stats.ts'
import type { RunTables } from '../data/run-data.ts'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { writeFileAtomic } from '../core/atomic.ts'
import { dirname, join } from 'node:path'
import { repoRoot } from '../core/paths.ts'

/** The criteria, fixed from the issue's words before any data: detectable change on the median cell at quick, code-path counts' movement on the median cell. */
export const TARGETS = { detectableQuick: 0.1, countsMoved: 0.03 } as const

export interface LikeRunFigures {
  name: string
  /** Paired cells, and those with a change (both sides valid in some round). */
  cells: number
  compared: number
  /** Cells whose verdict is a change: cheaper or dearer. */
  flagged: readonly PairedCell[]
  /** The change the median compared cell detects at 80% power (0.12 = 12%; lib/analysis/pairs.ts detectableChange). */
  detectable: number | null
  proxies: readonly ProxyChange[]
  machine: ReturnType<typeof machineChange>
  /** Per code-path count: |then today / baseline − 1| on the median cell that has both. */
  countsMoved: Record<string, number | null>
}

export function likeRunFigures(name: string, run: PairedRun, baseline: RunTables): LikeRunFigures {
  const cells = pairedCells(run, baseline)
  const compared = cells.filter((c) => c.detectable !== null)
  const countsMoved = Object.fromEntries(
    CODE_PATH_COUNTS.map((count) => {
      const moved = cells.flatMap((c) => {
        const k = c.counts[count]
        return k?.thenToday && k.baseline ? [Math.abs(k.thenToday / k.baseline - 1)] : []
      })
      return [count, moved.length ? median(moved) : null]
    }),
  )
  return {
    name,
    cells: cells.length,
    compared: compared.length,
    flagged: cells.filter((c) => c.verdict === 'cheaper' || c.verdict === 'dearer'),
    detectable: compared.length ? median(compared.map((c) => c.detectable!)) : null,
    proxies: proxyChanges(cells),
    machine: machineChange(cells),
    countsMoved,
  }
}

/**
 * The planted cost as the bench measured it: the planted config run as a user's config
 * (series `custom`) beside the catalog cell it was made from, one ratio per round of their
 * now sides, and their median with the range. Under --pair-same both are paired, so each
 * window is shared with its twin alike: a lone window beside a shared one would read the
 * sharing's cost as the plant's. Closed-model rows only: an open-model window of the same
 * cell at a fixed rate is another cell, and its round would stand in for the closed one's.
 */
export function plantSize(
  run: RunTables,
  proxy: string,
  variant: string,
  from = { series: 'same', variant: 'article' },
): { value: number; min: number; max: number; rounds: number } | null {
  const rows = run.measurements.filter((r) => r.proxy === proxy && r.model === 'closed' && r.status === 'valid' && r.proxy_cpu_us_per_req !== null)
  const planted = new Map(rows.filter((r) => r.series === 'custom' && r.variant === variant).map((r) => [r.repeat, r.proxy_cpu_us_per_req!]))
  const ratios = rows
    .filter((r) => r.series === from.series && r.variant === from.variant && planted.has(r.repeat))
    .map((r) => planted.get(r.repeat)! / r.proxy_cpu_us_per_req!)
  if (ratios.length === 0) return null
  return { value: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length }
}

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`)
const ratio = (c: { value: number; lo: number; hi: number }) => `${c.value.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}]`

/** One run's lines: cells, flags, detectable change, per-proxy change, machine change, counts moved. */
export function formatLikeRun(f: LikeRunFigures): string {
  const lines = [
    `${f.name}: ${f.compared} of ${f.cells} paired cells compared; flagged as a proxy change: ${f.flagged.length ? f.flagged.map((c) => `${c.proxy} ${c.series}/${c.variant} ${c.verdict} ${ratio(c.change!)}`).join('; ') : 'none'}`,
    `  detectable change at ${POWER * 100}% power, median cell: ${pct(f.detectable)} (target at quick ≤ ${pct(TARGETS.detectableQuick)})`,
    ...f.proxies.map(
      (p) => `  ${p.proxy} ${p.nowVersion} vs ${p.thenVersion}: ${p.change ? ratio(p.change) : '—'} ${verdictText(p.verdict, p.detectable)} (${p.cells} cells)`,
    ),
    `  machine change: ${f.machine ? `${ratio(f.machine)} (range ${f.machine.min.toFixed(3)}-${f.machine.max.toFixed(3)}, ${f.machine.cells} cells)` : 'none (no cell ran alone beside a baseline figure: a pair at one instant shares the core)'}`,
    `  code-path counts, then today vs baseline, median cell moved: ${Object.entries(f.countsMoved)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')} (target ≤ ${pct(TARGETS.countsMoved)})`,
  ]
  return lines.join('\n')
}

/**
 * HAProxy's article config with a known extra cost per request: `conversions` chained
 * sha2(512) of the Host header into a transaction variable, after the frontend's bind line.
 */
export function plantedConfig(article: string, conversions: number): string {
  const chain = Array.from({ length: conversions }, () => 'sha2(512),hex').join(',')
  return plantAfterBind(article, [`http-request set-var(txn.plant) req.hdr(host),${chain}`], 'bench/year-later.mjs')
}

// What bench/work.mjs shares with this bench: the plant in HAProxy's article config and a checkout with it.

/** The proxy whose config the benches plant a cost in. */
export const PLANT_PROXY = 'haproxy'

/** The catalog's article config of the plant's proxy. */
export const articleConfig = (): string => readFileSync(join(repoRoot, 'stacks', PLANT_PROXY, 'templates', 'article.cfg'), 'utf8')

/** HAProxy's article config with `rules` (http-request lines) after the frontend's bind line, under a comment naming `bench`. */
export function plantAfterBind(article: string, rules: readonly string[], bench: string): string {
  const lines = article.split('\n')
  const bind = lines.findIndex((l, i) => /^\s+bind\s/.test(l) && lines.slice(0, i).some((p) => /^frontend\s/.test(p)))
  if (bind < 0) throw new Error('the article config has no frontend bind line to plant after')
  lines.splice(bind + 1, 0, `    # planted by ${bench}: a known cost per request`, ...rules.map((r) => `    ${r}`))
  return lines.join('\n')
}

/** Writes a planted config, its folder made. */
export function writePlanted(file: string, config: string): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileAtomic(file, config)
}

/**
 * A copy of this checkout (its tracked and untracked files as they are in the working tree, the ignored left out) under <out>/planted-checkout,
 * with the planted article config in place of the catalog's.
 */
export function plantedCheckout(out: string, planted: string): string {
  const root = join(out, 'planted-checkout')
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean)
  for (const f of files) {
    if (!existsSync(join(repoRoot, f))) continue
    mkdirSync(dirname(join(root, f)), { recursive: true })
    copyFileSync(join(repoRoot, f), join(root, f))
  }
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'))
  copyFileSync(planted, join(root, 'stacks', PLANT_PROXY, 'templates', 'article.cfg'))
  return root
}
