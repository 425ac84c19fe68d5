import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { evaluateClaims } from '../claims/evaluate.ts'
import { formatLedger } from '../claims/format.ts'
import { loadLedger } from '../claims/ledger.ts'
import { ROW_FILES } from '../data/columns/table.ts'
import { CLAIM_VERDICTS, FINDING_VERDICTS, VERDICTS, type Verdict } from '../core/verdict.ts'
import { loadRun } from '../data/run-data.ts'
import { formatFindings } from '../findings/format.ts'
import { runFindings } from '../report/build.ts'
import { columnReference, schemaVersions } from './columns.ts'

/**
 * Blocks of the documentation that are output of the code, not typed: between
 * `<!-- generated: NAME -->` and `<!-- /generated -->`. `npm run docs` rewrites them; the
 * docs test fails when one differs from what the code produces now.
 */

const BLOCK = /(<!-- generated: ([\w-]+) -->\n)([\s\S]*?)(<!-- \/generated -->)/g

/** The names of the blocks a page holds. */
export const blockNames = (md: string) => [...md.matchAll(BLOCK)].map((m) => m[2]!)

/** The page with every block it holds replaced by its producer's text; an unknown name is an error. */
export function fillBlocks(md: string, page: string, produce: (name: string) => string | undefined): string {
  return md.replace(BLOCK, (_all, open: string, name: string, _old: string, close: string) => {
    const text = produce(name)
    if (text === undefined) throw new Error(`${page}: unknown generated block "${name}" (known: ${Object.keys(PRODUCERS).join(', ')}, cli)`)
    return `${open}${text.endsWith('\n') ? text : `${text}\n`}${close}`
  })
}

const fence = (text: string) => `\`\`\`\n${text.replace(/\s+$/, '')}\n\`\`\``

/** The fixture run's summary lines, as `npm run bench` prints them. */
function fixtureSummary(root: string, findingIds?: RegExp, ledgerLines = Infinity): string {
  const run = loadRun(join(root, 'test/fixtures/run-quick'))
  const claims = evaluateClaims(loadLedger(), run)
  const findings = runFindings(run, claims).filter((f) => !findingIds || findingIds.test(f.id))
  const ledger = formatLedger(claims).split('\n')
  const shown = ledgerLines >= ledger.length - 1 ? ledger : [...ledger.slice(0, ledgerLines), '  …', ledger.at(-1)!]
  return fence(`${formatFindings(findings)}\n${shown.join('\n')}`)
}

/** Every column of every row CSV a run writes, and what each schema version added, from the one column table. */
const rowFiles = () => Object.values(ROW_FILES)

/** The ledger's size in words: how many claims, how many of them belong to a finding. */
function ledgerSize(): string {
  const claims = loadLedger().claims
  const withFinding = claims.filter((c) => c.finding).length
  return `The **claims ledger** (\`baselines/published/claims.yaml\`, ${claims.length} claims) holds every claim of\nthe five seed articles with its source, the figure as published and a check; ${withFinding} of them\nbelong to a finding.`
}

/** The one verdict table (lib/core/verdict.ts) as Markdown: every word, what it decided, its mark and its label. */
function verdictTable(): string {
  const rows = (Object.keys(VERDICTS) as Verdict[]).map((v) => {
    const of = (list: readonly string[], what: string) => (list.includes(v) ? [what] : [])
    const used = [...of(CLAIM_VERDICTS, 'claim'), ...of(FINDING_VERDICTS, 'finding')].join(', ')
    return `| ${v} | ${VERDICTS[v].decision} | ${used} | ${VERDICTS[v].mark} | ${VERDICTS[v].label} |`
  })
  return ['| verdict | decision | of a | mark | article label |', '|---|---|---|---|---|', ...rows].join('\n')
}

const PRODUCERS: Record<string, (root: string) => string> = {
  'ledger-size': () => ledgerSize(),
  verdicts: () => verdictTable(),
  'fixture-summary': (root) => fixtureSummary(root, /^F[1-8]$/, 4),
  'fixture-summary-full': (root) => fixtureSummary(root),
  columns: () => columnReference(rowFiles()),
  'schema-versions': () => schemaVersions(rowFiles()),
}

/** docs/cli.md's body: every notebook's and bench script's `--help`, in file order. */
export function cliReference(help: ReadonlyMap<string, string>): string {
  return [...help]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([script, text]) => `## ${script}\n\n${fence(text)}\n`)
    .join('\n')
}

/** A page as `npm run docs` would write it. */
export function regenerate(root: string, page: string, help: ReadonlyMap<string, string>): string {
  const md = readFileSync(join(root, page), 'utf8')
  return fillBlocks(md, page, (name) => (name === 'cli' ? cliReference(help) : PRODUCERS[name]?.(root)))
}
