import type { ClaimResult } from '../../claims/evaluate.ts'
import { verdictCounts } from '../../claims/format.ts'
import { VERDICTS } from '../../core/verdict.ts'
import type { RunTables } from '../../data/run-data.ts'
import { TABLES } from '../../data/tables.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import { articleNumber } from './common.ts'
import type { ArticleInput, Finding } from './input.ts'

/** The verdict counts of the claims ledger, or that it was not evaluated. */
export const claimCounts = (claims: readonly ClaimResult[]): string => (claims.length ? verdictCounts(claims) : 'not evaluated')

/** `3-5, 9`: sorted line numbers as ranges. */
function ranges(lines: readonly number[]): string {
  const out: string[] = []
  for (let i = 0; i < lines.length; ) {
    let j = i
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++
    out.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`)
    i = j + 1
  }
  return out.join(', ')
}

/**
 * The CSV lines behind a claim's verdict (line 1 is the header), linked to the run's own
 * CSVs in data/: every row of every cell the check read, invalid ones included.
 */
export function rowsUsed(c: ClaimResult, run: RunTables): string {
  const byTable = new Map<keyof typeof TABLES, Set<number>>()
  for (const e of c.evidence) {
    const table = e.table as keyof typeof TABLES
    const rows = run[table] as unknown as Record<string, unknown>[]
    const keys = Object.entries(e.cell)
    rows.forEach((r, i) => {
      if (keys.every(([k, v]) => (r[k] ?? null) === v)) byTable.set(table, (byTable.get(table) ?? new Set()).add(i + 2))
    })
  }
  if (byTable.size === 0) return '—'
  return [...byTable].map(([t, lines]) => `[${TABLES[t].file}](data/${TABLES[t].file}) ${ranges([...lines].sort((x, y) => x - y))}`).join('; ')
}

/** Characters of a claim's figures the print shows (the site and claims.csv have them whole). */
const PRINTED_FIGURES = 120

/**
 * The figures cut for the print: at the last clause (or word) that fits, with an ellipsis; a line
 * may end after a `+` (`nginx+envoy+haproxy…` is wider than its column, and no word breaks).
 */
function printedFigures(text: string): string {
  const clause = text.lastIndexOf('; ', PRINTED_FIGURES)
  const cut = text.length <= PRINTED_FIGURES ? text : `${text.slice(0, clause >= PRINTED_FIGURES / 3 ? clause : text.lastIndexOf(' ', PRINTED_FIGURES))} …`
  return cut.replaceAll('+', '+\u200b')
}

// The mark tells inconclusive (?) apart from the decided verdicts at a glance.
const verdictText = (c: ClaimResult) => `${esc(VERDICTS[c.verdict].mark)} **${esc(c.verdict)}**`

/**
 * A claim and a line of the finding it belongs to (its `finding`: the same sentence of the
 * article) decided opposite ways, each with its own rule: two bounds, not a contradiction.
 */
export function disagreements(claims: readonly ClaimResult[], findings: readonly Finding[]): string[] {
  const side = (v: string) => VERDICTS[v as keyof typeof VERDICTS]?.decision
  return claims.flatMap((c) => {
    const mine = side(c.verdict)
    if (!c.finding || (mine !== 'holds' && mine !== 'fails')) return []
    return findings
      .filter((f) => f.id === c.finding && (side(f.verdict) === 'holds' || side(f.verdict) === 'fails') && side(f.verdict) !== mine)
      .map(
        (f) =>
          `\`${c.id.replace(/`/g, '')}\` ${esc(VERDICTS[c.verdict].mark)} ${esc(c.verdict)}, its rule: ${esc(c.expect)}; beside **${esc(f.id)}** ${esc(VERDICTS[f.verdict].mark)} ${esc(f.verdict)}, its rule: ${esc(f.title)}.`,
      )
  })
}

/** Verdicts of a claim this run did not measure: the print counts them, the site lists them. */
const UNMEASURED: ReadonlySet<string> = new Set(['not measured', 'not runnable here'])

/** Every claim of the source articles with its check over this run and its verdict; in print, by article without ids, checks and rows. */
export function claimsSection(a: Article, { claims, run, findings }: ArticleInput): ChartRequest[] {
  a.heading(2, 'Claims ledger')
  a.para(
    `Every claim of the source articles this harness can test, with its check over this run's cell medians (\`baselines/published/claims.yaml\`) and the CSV lines it read (line 1 is the header): ${claimCounts(claims)}. Each figure carries its interval over the repeats, \`[lo, hi]\` (a paired bootstrap at 95%; one cell's median: order statistics; widened by the run's pooled noise where a cell has few repeats, or by an unstable cell's own spread): a claim is reproduced or not reproduced only when the whole interval is on one side of the check's bound, else it is "inconclusive" (so is any figure from a single repeat, and a status that ties). "Not measured" means a cell the check needs is absent from this run; it is never counted as "not reproduced".`,
  )
  if (claims.length === 0) return (a.para('*The claims ledger was not evaluated.*'), [])
  // Every claim with its id, check and CSV lines is for looking up; the print has each claim's words, figures and verdict by article.
  a.siteOnly("The claims ledger in full: each claim's id, its check, all its figures and the CSV lines it read", () =>
    a.table(
      'claims',
      [
        { title: 'claim', value: (c) => c.id },
        { title: 'source', value: (c) => articleNumber(c.source) },
        { title: 'what was claimed', value: (c) => c.claim },
        { title: 'published', value: (c) => c.published },
        { title: 'check', value: (c) => c.expect },
        // The rows behind the figure follow it: links built from fixed file names and numbers only
        // (a column of their own would make the table wider than an A4 page).
        { title: 'this run', value: (c) => c.measured, show: (c) => (c.evidence.length ? `${esc(c.measured)} (rows: ${rowsUsed(c, run)})` : esc(c.measured)) },
        { title: 'verdict', value: (c) => c.verdict, show: verdictText },
      ],
      claims,
    ),
  )
  a.printOnly(() => {
    // What this run measured, decided or not: the claims it could not measure are counted, their list is the site's.
    const measured = claims.filter((c) => !UNMEASURED.has(c.verdict))
    const bySource = [...measured].sort((x, y) => x.source.localeCompare(y.source))
    if (measured.length < claims.length)
      a.para(
        `${claims.length - measured.length} of ${claims.length} claims were not measured or cannot run here; the table below holds the other ${measured.length}, the site's ledger every claim.`,
      )
    const firsts = new Set(bySource.filter((c, i) => bySource[i - 1]?.source !== c.source))
    a.para('[[class:claims]]')
    a.table(
      'claims',
      [
        { title: 'article', value: (c) => c.source, show: (c) => (firsts.has(c) ? `**${esc(articleNumber(c.source))}**` : '') },
        { title: 'what was claimed', value: (c) => c.claim },
        { title: 'published', value: (c) => c.published },
        { title: 'this run', value: (c) => c.measured, show: (c) => esc(printedFigures(c.measured)) },
        { title: 'verdict', value: (c) => c.verdict, show: verdictText },
      ],
      bySource,
      undefined,
      { view: true },
    )
  })
  const differ = disagreements(claims, findings)
  if (differ.length) {
    a.para('Where a claim and a line of its finding decided opposite ways, each by its own rule:')
    a.bullets(differ)
  }
  return []
}
