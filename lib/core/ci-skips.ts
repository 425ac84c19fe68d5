import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { userError } from './errors.ts'
import { displayPath, repoRoot } from './paths.ts'

/**
 * Tests that cannot pass by skipping (docs/ci.md#skips): a test that needs a component
 * (Docker, a registry, network namespaces, root) skips with the reason where it is missing,
 * but in CI (`CI=true`) a missing component is a failure unless `.ci/allowed-skips` lists
 * the test as unavailable on purpose, with its reason. A skip's text starts with `[id]`, so
 * .ci/run can tell every skip in the runner's output that came through this rule.
 */
export const ALLOWED_SKIPS_FILE = join(repoRoot, '.ci', 'allowed-skips')

export interface AllowedSkip {
  /** The test's id as its file names it (e.g. `integration/multihost`), or `id: test name` for one test. */
  id: string
  reason: string
  line: number
}

/** `.ci/allowed-skips`: one `<id>  <reason>` a line (two spaces or a tab between), `#` comments, blank lines. */
export function parseAllowedSkips(text: string, file = ALLOWED_SKIPS_FILE): AllowedSkip[] {
  const out: AllowedSkip[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (!line || line.startsWith('#')) return
    const m = /^(\S(?:.*?\S)?)(?:\t+| {2,})(\S.*)$/.exec(line)
    if (!m)
      throw userError(
        `${displayPath(file)}:${i + 1}`,
        `"${line}" has no reason`,
        'Write the test id, two spaces, and why the component is unavailable on purpose, e.g. "integration/multihost  this CI has no CAP_SYS_ADMIN"',
      )
    out.push({ id: m[1]!, reason: m[2]!, line: i + 1 })
  })
  return out
}

export function readAllowedSkips(file = process.env.PROXYBENCH_ALLOWED_SKIPS ?? ALLOWED_SKIPS_FILE): AllowedSkip[] {
  return existsSync(file) ? parseAllowedSkips(readFileSync(file, 'utf8'), file) : []
}

export const inCi = (env: NodeJS.ProcessEnv = process.env): boolean => env.CI === 'true' || env.CI === '1'

export type SkipDecision = { kind: 'run' } | { kind: 'skip'; reason: string } | { kind: 'fail'; reason: string }

/**
 * What a test that needs a component does: run where nothing is missing; else skip with
 * `[id] reason`; in CI fail instead, unless the id (or `id: name`) is allowed.
 */
export function decideSkip(
  id: string,
  name: string,
  missing: string | false | null | undefined,
  o: { ci: boolean; allowed: readonly AllowedSkip[] },
): SkipDecision {
  if (!missing) return { kind: 'run' }
  const allowed = o.allowed.find((a) => a.id === id || a.id === `${id}: ${name}`)
  if (!o.ci) return { kind: 'skip', reason: `[${id}] ${missing}` }
  if (allowed) return { kind: 'skip', reason: `[${id}] ${missing} (allowed in CI: ${allowed.reason})` }
  return {
    kind: 'fail',
    reason: `[${id}] ${missing}: in CI a test may not skip for a missing component; install it, or list "${id}" with the reason in .ci/allowed-skips (docs/ci.md#skips)`,
  }
}

/** The skipped tests of a TAP report (`ok N - name # SKIP reason`) that no allowed rule explains: what .ci/run fails on. */
export function unlistedSkips(tap: string, allowed: readonly AllowedSkip[]): { name: string; reason: string }[] {
  const out: { name: string; reason: string }[] = []
  for (const m of tap.matchAll(/^\s*ok \d+ - (.*?) # SKIP ?(.*)$/gm)) {
    const [, name, reason] = m as unknown as [string, string, string]
    const id = /^\[([^\]]+)\]/.exec(reason)?.[1]
    if (!id || !allowed.some((a) => a.id === id || a.id === `${id}: ${name}`)) out.push({ name, reason })
  }
  return out
}

/** The totals of the runner's summary lines (`# tests N`, `# pass N`, … `# skipped N`); null where one is absent. */
export function runnerTotals(tap: string): { tests: number; pass: number; fail: number; skipped: number } | null {
  const total = (what: string) => [...tap.matchAll(new RegExp(`^# ${what} (\\d+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0)
  if (!/^# tests \d+$/m.test(tap)) return null
  return { tests: total('tests'), pass: total('pass'), fail: total('fail'), skipped: total('skipped') }
}

/** .ci/run's last word on a test log: the summary with `N skipped`, and a failure for every unlisted skip. */
export function skipReport(tap: string, allowed: readonly AllowedSkip[]): { ok: boolean; lines: string[] } {
  const totals = runnerTotals(tap)
  if (!totals) return { ok: false, lines: ['ci: the test log has no runner summary (# tests N): the tests did not finish'] }
  const unlisted = unlistedSkips(tap, allowed)
  const lines = [
    `ci: ${totals.tests} tests, ${totals.pass} pass, ${totals.fail} fail, ${totals.skipped} skipped (${totals.skipped - unlisted.length} listed in .ci/allowed-skips)`,
  ]
  for (const u of unlisted) lines.push(`ci: skipped and not listed in .ci/allowed-skips: "${u.name}": ${u.reason || '(no reason)'}`)
  if (unlisted.length) lines.push('ci: install what they need, or list each with its reason in .ci/allowed-skips (docs/ci.md#skips)')
  return { ok: unlisted.length === 0, lines }
}
