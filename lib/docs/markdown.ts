/**
 * What a Markdown page names: its headings' anchors, its links, the repository paths and
 * command lines in its code. Read with the rules GitHub renders by, so that a link that
 * works here works on the forge too.
 */

/** Every line but the fences, with its 1-based number and whether it is inside a fenced code block. */
function lines(md: string): { line: number; text: string; fenced: boolean }[] {
  let fenced = false
  return md.split('\n').flatMap((text, i) => {
    const fence = /^\s*```/.test(text)
    if (fence) fenced = !fenced
    return fence ? [] : [{ line: i + 1, text, fenced }]
  })
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
export const proseLines = (md: string): { line: number; text: string }[] => lines(md).filter((l) => !l.fenced)

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor a page defines: its headings (duplicates numbered as GitHub does) and explicit `<a id>`s. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const { text } of proseLines(md)) {
    const h = /^#{1,6} (.*)$/.exec(text)
    if (h) {
      const s = slug(h[1]!)
      const n = seen.get(s) ?? 0
      seen.set(s, n + 1)
      out.add(n === 0 ? s : `${s}-${n}`)
    }
    for (const a of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(a[1]!)
  }
  return out
}

export interface Link {
  line: number
  target: string
}

/** Inline links `[text](target)` outside code, external ones (`https:`, `mailto:`) left out. */
export function links(md: string): Link[] {
  const out: Link[] = []
  for (const { line, text } of proseLines(md)) {
    const prose = text.replace(/`[^`]*`/g, '')
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]!)) out.push({ line, target: m[1]! })
  }
  return out
}

/** Every code span and code-block line, with its line number. */
export const codeLines = (md: string): { line: number; text: string }[] =>
  lines(md).flatMap(({ line, text, fenced }) => (fenced ? [{ line, text }] : [...text.matchAll(/`([^`]+)`/g)].map((m) => ({ line, text: m[1]! }))))

/** The top-level folders whose paths a page may name and that must exist. */
export const REPO_FOLDERS = ['lib', 'notebooks', 'bench', 'stacks', 'test', 'docs', 'baselines', '.ci'] as const

/**
 * Repository paths named in code: `lib/run/phase.ts`, `stacks/<proxy>/stack.yaml`. A
 * placeholder (`<proxy>`, `*`, `…`) stands for any one path segment.
 */
export function repoPaths(code: string): string[] {
  const re = new RegExp(String.raw`(?<![\w./-])((?:${REPO_FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})/[\w.<>*{}…/-]*[\w>*}…])`, 'g')
  return [...code.matchAll(re)].map((m) => m[1]!.replace(/[.,:;]+$/, ''))
}

/** A command line's script and its flags: `npx zx notebooks/run-all.mjs --series tls` → script, ['--series']. */
export function commandFlags(code: string): { script: string; flags: string[] }[] {
  const out: { script: string; flags: string[] }[] = []
  // Several commands on one line (`a && b`, `a; b`, `a | b`) are read apart.
  for (const part of code.split(/&&|\|\||;|\|/)) {
    const m = /(?:npx zx |zx |node )?((?:notebooks|bench)\/[\w-]+\.mjs)\b(.*)$/.exec(part) ?? /npm run ([\w:-]+)(?: --)?(.*)$/.exec(part)
    if (!m) continue
    const script = m[1]!.endsWith('.mjs') ? m[1]! : `npm run ${m[1]}`
    const flags = [...m[2]!.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g)].map((f) => f[1]!)
    out.push({ script, flags })
  }
  return out
}
