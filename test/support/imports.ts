import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * The one import parser of the architecture tests (layout, closure, dependencies): every
 * module a source names, static, side-effect, re-exported, dynamic and required, each marked
 * type-only when it loads nothing at run time. Comments are left out; a specifier built at
 * run time (a template literal) is not seen.
 */
export interface ImportRef {
  spec: string
  /** `import type …`, `export type … from`, `typeof import(…)`: checked by tsc, never loaded. */
  typeOnly: boolean
}

/** A source without its comments: block comments on their own lines, one-line block comments, `//` lines. */
const withoutComments = (text: string) =>
  text
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
    .replace(/\/\*[^\n]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')

export function parseImports(text: string): ImportRef[] {
  const code = withoutComments(text)
  const found: { at: number; ref: ImportRef }[] = []
  const add = (m: RegExpMatchArray, spec: string, typeOnly: boolean) => found.push({ at: m.index!, ref: { spec, typeOnly } })
  // The clause between `import` and `from` spans lines, never into the next statement (`export type { T }` then an import).
  for (const m of code.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:(?!\n\s*(?:import|export)\b)[^'"`;])*?\bfrom\s*['"]([^'"]+)['"]/gm)) add(m, m[2]!, !!m[1])
  for (const m of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) add(m, m[1]!, false)
  for (const m of code.matchAll(/(\btypeof\s+)?\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m, m[2]!, !!m[1])
  for (const m of code.matchAll(/\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m, m[1]!, false)
  return found.sort((a, b) => a.at - b.at).map((f) => f.ref)
}

/** What a source loads when it runs: its imports less the type-only ones, as written. */
export const runtimeImports = (text: string): string[] => parseImports(text).flatMap((i) => (i.typeOnly ? [] : [i.spec]))

/** Package specifiers (neither relative nor absolute), type-only included, each once. */
export const bareImports = (text: string): string[] => [
  ...new Set(
    parseImports(text)
      .map((i) => i.spec)
      .filter((s) => !s.startsWith('.') && !s.startsWith('/')),
  ),
]

/** The relative imports of `file` (type-only included: a type names the code it comes from), as paths relative to `root`. */
export const relativeImports = (file: string, text: string, root: string): string[] =>
  parseImports(text)
    .filter((i) => i.spec.startsWith('./') || i.spec.startsWith('../'))
    .map((i) => relative(root, resolve(dirname(file), i.spec)))

/** The files under `dir` whose names match `pattern` (default: .ts), `leaveOut` folders left out. */
export function sourceFiles(dir: string, pattern = /\.ts$/, leaveOut: readonly string[] = []): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f)
      if (leaveOut.includes(f)) return []
      return statSync(p).isDirectory() ? sourceFiles(p, pattern, leaveOut) : pattern.test(f) ? [p] : []
    })
}

/** A module graph: each file (relative to its root) and the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>

/** The runtime import graph of the .ts files under `dir`, paths relative to `root` (type-only imports load nothing: left out). */
export function runtimeGraph(root: string, dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const f of sourceFiles(join(root, dir))) {
    const specs = runtimeImports(readFileSync(f, 'utf8')).filter((s) => s.startsWith('./') || s.startsWith('../'))
    graph.set(
      relative(root, f),
      specs.map((s) => relative(root, resolve(dirname(f), s))),
    )
  }
  return graph
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file (or a
 * file importing itself), each sorted, in the order Tarjan's walk closes them.
 */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles
}
