import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import ts from 'typescript'
import { repoRoot } from '../../lib/core/paths.ts'
import { sourceFiles } from '../support/imports.ts'

/** Every flag entry a source declares by hand: a property whose value is an object literal with `type: 'string' | 'boolean'`. */
function declaredFlags(file: string, text: string): { name: string; at: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: { name: string; at: string }[] = []
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(node.initializer)) {
      const type = node.initializer.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(source) === 'type')
      if (type && ts.isPropertyAssignment(type) && ts.isStringLiteral(type.initializer) && ['string', 'boolean'].includes(type.initializer.text)) {
        const name = ts.isStringLiteral(node.name) ? node.name.text : node.name.getText(source)
        found.push({ name, at: `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}` })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Each name declared in more than one place, with its places. */
function declaredTwice(files: readonly { file: string; text: string }[]): string[] {
  const places = new Map<string, string[]>()
  for (const { file, text } of files) for (const { name, at } of declaredFlags(file, text)) places.set(name, [...(places.get(name) ?? []), at])
  return [...places].filter(([, at]) => at.length > 1).map(([name, at]) => `--${name}: ${at.join(', ')}`)
}

test('the scan sees a flag entry written over several lines, quoted or not, and nothing else', () => {
  const text = "const T = flagTable({\n  'no-x': { type: 'boolean' },\n  y: {\n    type: 'string',\n    arg: 'N',\n  },\n  z: { kind: 'string' },\n})"
  assert.deepEqual(declaredFlags('a.mjs', text), [
    { name: 'no-x', at: 'a.mjs:2' },
    { name: 'y', at: 'a.mjs:3' },
  ])
  assert.deepEqual(
    declaredTwice([
      { file: 'a.mjs', text },
      { file: 'b.ts', text: "export const F = { y: { type: 'string' } } as const" },
    ]),
    ['--y: a.mjs:3, b.ts:1'],
  )
})

test('every flag is declared once over lib/cli, the notebooks and the benches (a shared one in COMMON_FLAGS)', () => {
  const files = [
    ...sourceFiles(join(repoRoot, 'lib/cli')),
    ...sourceFiles(join(repoRoot, 'notebooks'), /\.(mjs|ts)$/),
    ...sourceFiles(join(repoRoot, 'bench'), /\.(mjs|ts)$/),
  ].map((f) => ({ file: relative(repoRoot, f), text: readFileSync(f, 'utf8') }))
  assert.ok(declaredFlags('lib/cli/run-flags.ts', files.find((f) => f.file === 'lib/cli/run-flags.ts')!.text).length > 10, 'the scan finds the run flags')
  assert.deepEqual(declaredTwice(files), [])
})
