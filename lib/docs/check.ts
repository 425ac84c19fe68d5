import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { anchors, codeLines, commandFlags, links, repoPaths } from './markdown.ts'

/**
 * Documentation that cannot go stale silently: every link, anchor, path, npm script and
 * notebook flag that README.md, CONTRIBUTING.md, docs/ and the code's comments name must
 * exist. Each problem is one line: `file:line: what is wrong`.
 */

export interface DocsInputs {
  root: string
  /** npm script names from package.json. */
  scripts: readonly string[]
  /** Each notebook and bench script (`notebooks/run-all.mjs`) and its `--help` text. */
  help: ReadonlyMap<string, string>
}

/** The files under `dir` (relative to `root`) whose names match `name`; none when it is absent. */
function filesUnder(root: string, dir: string, name: RegExp): string[] {
  if (!existsSync(join(root, dir))) return []
  return readdirSync(join(root, dir)).flatMap((f) => {
    const p = join(dir, f)
    return statSync(join(root, p)).isDirectory() ? filesUnder(root, p, name) : name.test(p) ? [p] : []
  })
}

/** The Markdown pages a reader is pointed at. */
export function docPages(root: string): string[] {
  return ['README.md', 'CONTRIBUTING.md', 'certs/README.md', 'baselines/published/README.md', ...filesUnder(root, 'docs', /\.md$/)].filter((p) =>
    existsSync(join(root, p)),
  )
}

/** Source files whose comments may point at documentation. */
export function codeFiles(root: string): string[] {
  // test/docs/ holds the checker's own examples of drift, lib/docs/ the patterns it looks for.
  return ['lib', 'notebooks', 'bench', 'test', 'stacks']
    .flatMap((d) => filesUnder(root, d, /\.(ts|mjs|go|sh)$/))
    .filter((f) => !f.startsWith('test/docs/') && !f.startsWith('lib/docs/'))
}

/** Flags of a help text: every `--name` it lists. */
export const helpFlags = (help: string) => new Set([...help.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!))

/** Whether a path with placeholders (`<proxy>`, `*`, `…`) names something in the tree. */
export function pathExists(root: string, path: string): boolean {
  const parts = path.replace(/\/$/, '').split('/')
  const match = (dir: string, i: number): boolean => {
    if (i === parts.length) return true
    const part = parts[i]!
    if (!/[<>*{}…]/.test(part))
      return existsSync(join(dir, part)) && (i === parts.length - 1 || statSync(join(dir, part)).isDirectory()) && match(join(dir, part), i + 1)
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false
    const re = new RegExp(`^${part.replace(/[.+?^$()[\]\\|]/g, '\\$&').replace(/<[^>]*>|\*|\{[^}]*\}|…/g, '.*')}$`)
    return readdirSync(dir).some((f) => re.test(f) && match(join(dir, f), i + 1))
  }
  return match(root, 0)
}

/**
 * Paths named in prose that are produced by a run, not kept in the tree; and the published
 * site's `baselines/<id>/` pages, which share a name with the repository's folder.
 */
const GENERATED = /^(results|site|certs\/[\w.-]+\.(key|crt|pem))\b|\.cache\/|^baselines\/<id>\/index\.html$/

/**
 * Files deleted since a dated lab note named them (issue #42: the same-instant reference, the
 * two-part unit and their benches; issue #53: the across-run comparison, the calibrated unit,
 * the per-run calibration and their bench). A lab note is a record of its date and never edited, so
 * there, and only there, these still count as named correctly.
 */
const GONE_SINCE_LAB_NOTES = new Set([
  'bench/calibration.mjs',
  'bench/machine-shift.mjs',
  'bench/reference-cost.mjs',
  'docs/method/calibration.md',
  'docs/method/reference.md',
  'lib/analysis/between-run.ts',
  'lib/analysis/calibrated.ts',
  'lib/analysis/compare.ts',
  'lib/analysis/run-figures.ts',
  'lib/measure/calibration.ts',
  'test/analysis/compare.test.ts',
  'test/bench/machine-shift.test.ts',
  'test/bench/reference-cost.test.ts',
  'test/data/calibration-unit.test.ts',
  'test/measure/reference.test.ts',
])
const goneSince = (page: string, path: string) => page.startsWith('docs/lab-notes/') && GONE_SINCE_LAB_NOTES.has(path)

function checkPage(page: string, inputs: DocsInputs, anchorsOf: (file: string) => Set<string> | null): string[] {
  const md = readFileSync(join(inputs.root, page), 'utf8')
  return [...linkProblems(page, md, inputs.root, anchorsOf), ...codeLineProblems(page, md, inputs)]
}

/** Links of a page whose file is missing, or whose anchor its Markdown target lacks. */
function linkProblems(page: string, md: string, root: string, anchorsOf: (file: string) => Set<string> | null): string[] {
  const out: string[] = []
  for (const { line, target } of links(md)) {
    const [path, frag] = target.split('#') as [string, string | undefined]
    const file = path ? relative(root, resolve(dirname(join(root, page)), decodeURI(path))) : page
    if (file.startsWith('..') || goneSince(page, file)) continue // outside the repository (../shared/), or gone since a lab note named it
    if (!existsSync(join(root, file))) out.push(`${page}:${line}: link to ${target}: ${file} does not exist`)
    else if (frag && file.endsWith('.md') && !anchorsOf(file)?.has(frag)) out.push(`${page}:${line}: link to ${target}: ${file} has no heading #${frag}`)
  }
  return out
}

/** Paths in a page's code that do not exist, and commands whose script or flags do not. */
function codeLineProblems(page: string, md: string, inputs: DocsInputs): string[] {
  const out: string[] = []
  for (const { line, text } of codeLines(md)) {
    for (const p of repoPaths(text))
      if (!GENERATED.test(p) && !goneSince(page, p) && !pathExists(inputs.root, p)) out.push(`${page}:${line}: ${p} does not exist`)
    for (const { script, flags } of commandFlags(text)) out.push(...commandProblems(script, flags, inputs).map((problem) => `${page}:${line}: ${problem}`))
  }
  return out
}

/** What is wrong with one command a page shows: an npm script package.json lacks, or flags its --help does not list. */
function commandProblems(script: string, flags: readonly string[], inputs: DocsInputs): string[] {
  const npm = script.startsWith('npm run ')
  if (npm && !inputs.scripts.includes(script.slice(8))) return [`${script}: package.json has no such script`]
  // A script that does not exist is already reported as a missing path.
  if (!npm && !existsSync(join(inputs.root, script))) return []
  const help = scriptHelp(script, inputs)
  if (help === undefined) return []
  const known = helpFlags(help)
  return flags.filter((f) => f !== '--help' && !known.has(f)).map((f) => `${script} has no flag ${f} (not in its --help)`)
}

/** The --help of a notebook or bench script, or of the one an npm script (of package.json) runs; undefined when it runs none (nothing to check). */
function scriptHelp(script: string, inputs: DocsInputs): string | undefined {
  if (!script.startsWith('npm run ')) return inputs.help.get(script)
  const name = script.slice(8)
  const body = (JSON.parse(readFileSync(join(inputs.root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[name]!
  const nb = /((?:notebooks|bench)\/[\w-]+\.mjs)/.exec(body)?.[1]
  return nb ? inputs.help.get(nb) : undefined
}

/** Pointers from code comments to the docs: a docs page and its anchor must resolve; README section names are gone. */
function checkCode(file: string, root: string, anchorsOf: (file: string) => Set<string> | null): string[] {
  const out: string[] = []
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/README\s"[^"]+"/.test(text)) out.push(`${file}:${i + 1}: a README section named in quotes: point at a docs/ page and anchor instead`)
      for (const m of text.matchAll(/(?<![\w/.-])((?:docs\/[\w./-]+\.md|CONTRIBUTING\.md|README\.md))(?:#([\w-]+))?/g)) {
        const target = m[1]!
        if (!existsSync(join(root, target))) out.push(`${file}:${i + 1}: ${target} does not exist`)
        else if (m[2] && !anchorsOf(target)?.has(m[2])) out.push(`${file}:${i + 1}: ${target} has no heading #${m[2]}`)
      }
    })
  return out
}

/** Every notebook and bench script is named on a written page (docs/cli.md is generated, so it does not count). */
function unnamedScripts(inputs: DocsInputs): string[] {
  const written = docPages(inputs.root)
    .filter((p) => p !== 'docs/cli.md')
    .map((p) => readFileSync(join(inputs.root, p), 'utf8'))
    .join('\n')
  return [...inputs.help.keys()]
    .filter((s) => !written.includes(s))
    .map((s) => `${s}: named on no page of README.md, CONTRIBUTING.md or docs/ (say what it is for)`)
}

/** CONTRIBUTING.md's layout names every folder of lib/. */
function unlistedFolders(root: string): string[] {
  const file = join(root, 'CONTRIBUTING.md')
  if (!existsSync(file)) return ['CONTRIBUTING.md: missing (the layout and where a change goes)']
  const text = readFileSync(file, 'utf8')
  return readdirSync(join(root, 'lib'))
    .filter((f) => statSync(join(root, 'lib', f)).isDirectory() && !new RegExp(`^\\s+${f}/\\s`, 'm').test(text))
    .map((f) => `CONTRIBUTING.md: the layout does not list lib/${f}/`)
}

export function checkDocs(inputs: DocsInputs): string[] {
  const cache = new Map<string, Set<string> | null>()
  const anchorsOf = (file: string) => {
    if (!cache.has(file)) cache.set(file, existsSync(join(inputs.root, file)) ? anchors(readFileSync(join(inputs.root, file), 'utf8')) : null)
    return cache.get(file)!
  }
  return [
    ...docPages(inputs.root).flatMap((p) => checkPage(p, inputs, anchorsOf)),
    ...codeFiles(inputs.root).flatMap((f) => checkCode(f, inputs.root, anchorsOf)),
    ...unnamedScripts(inputs),
    ...unlistedFolders(inputs.root),
  ]
}
