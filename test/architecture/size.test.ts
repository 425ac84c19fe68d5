import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { sizes, type Sizes } from '../support/sizes.ts'

/**
 * A size rule for lib/ (CONTRIBUTING.md#size): no file over 400 lines, no function over 80,
 * counted with the TypeScript compiler's own parse. What is over today is listed below with
 * its size today; the lists only shrink: an entry may not grow, and one that is back within
 * the limit (or gone) fails the test until it is taken out, so the rule ratchets.
 */
export const MAX_FILE_LINES = 400
export const MAX_FUNCTION_LINES = 80

/** Files over MAX_FILE_LINES today, with their lines today (the most they may have). */
const FILES_OVER: Record<string, number> = {}

/** Functions over MAX_FUNCTION_LINES today (`file name`, as sizes() names them), with their lines today. */
const FUNCTIONS_OVER: Record<string, number> = {}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
}

export interface SizeProblems {
  /** Over the limit and not listed: fix it, never list it. */
  over: string[]
  /** Listed, and bigger than listed. */
  grown: string[]
  /** Listed, and now within the limit or gone: take the entry out. */
  stale: string[]
}

/** What breaks the rule, given each file's sizes and the lists of what may be over. */
export function sizeProblems(files: ReadonlyMap<string, Sizes>, filesOver: Record<string, number>, functionsOver: Record<string, number>): SizeProblems {
  const over: string[] = []
  const grown: string[] = []
  const seen = new Set<string>()
  const check = (key: string, size: number, max: number, listed: Record<string, number>, what: string) => {
    if (size <= max) return
    seen.add(key)
    if (listed[key] === undefined) over.push(`${key}: ${size} lines, over ${max} (${what}): split it`)
    else if (size > listed[key]!) grown.push(`${key}: ${size} lines, listed at ${listed[key]}: it may only shrink`)
  }
  for (const [file, s] of files) {
    check(file, s.lines, MAX_FILE_LINES, filesOver, 'file')
    for (const [name, lines] of s.functions) check(`${file} ${name}`, lines, MAX_FUNCTION_LINES, functionsOver, 'function')
  }
  const stale = [...Object.keys(filesOver), ...Object.keys(functionsOver)]
    .filter((k) => !seen.has(k))
    .map((k) => `${k}: within the limit now (or gone): take it out of the list`)
  return { over, grown, stale }
}

test(`no file in lib/ over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}, except the listed ones, which may only shrink`, () => {
  const files = new Map(sources(join(repoRoot, 'lib')).map((f) => [relative(repoRoot, f), sizes(readFileSync(f, 'utf8'), f)] as const))
  assert.deepEqual(sizeProblems(files, FILES_OVER, FUNCTIONS_OVER), { over: [], grown: [], stale: [] })
})

test('functions are measured first line to last, nested ones on their own and named by where they sit', () => {
  const long = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join('\n')
  const text = [
    'export function top(): void {', // line 1
    long(3),
    '  const inner = () => {',
    long(2),
    '  }',
    '}',
    'class Box {',
    '  get size(): number {',
    '    return 1',
    '  }',
    '  open(): void {',
    '    [1].map(function () { return 2 })',
    '  }',
    '}',
    'declare function bodiless(): void',
    '',
  ].join('\n')
  const s = sizes(text)
  assert.equal(s.lines, 18)
  assert.deepEqual(Object.fromEntries(s.functions), { top: 9, 'top.inner': 4, 'Box.size': 3, 'Box.open': 3, 'Box.open.(anonymous)': 1 })
})

test('the rule names a new offender, one that grew, and a listed entry that is no longer needed', () => {
  const big = (lines: number, fns: Record<string, number> = {}): Sizes => ({ lines, functions: new Map(Object.entries(fns)) })
  const files = new Map([
    ['lib/a.ts', big(401)],
    ['lib/b.ts', big(500, { run: 81 })],
    ['lib/c.ts', big(120, { run: 90, small: 80 })],
  ])
  assert.deepEqual(sizeProblems(files, { 'lib/b.ts': 450, 'lib/gone.ts': 600 }, { 'lib/b.ts run': 81, 'lib/c.ts run': 85, 'lib/c.ts small': 82 }), {
    over: ['lib/a.ts: 401 lines, over 400 (file): split it'],
    grown: ['lib/b.ts: 500 lines, listed at 450: it may only shrink', 'lib/c.ts run: 90 lines, listed at 85: it may only shrink'],
    stale: ['lib/gone.ts: within the limit now (or gone): take it out of the list', 'lib/c.ts small: within the limit now (or gone): take it out of the list'],
  })
})
