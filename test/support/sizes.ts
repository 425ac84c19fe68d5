import ts from 'typescript'

/* Lines of TypeScript files and of the functions in them, counted as the size rule of 2026-12-02 did (now in biome.jsonc); the layout lab note (docs/lab-notes/2026-12-02-layout.md) counts with it. */

/** Lines of a file as `wc -l` counts them. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** The name a function is listed by: its own, its variable's or property's, or `(anonymous)`; inside a class or another function, `Outer.name`. */
function nameOf(node: ts.Node): string | undefined {
  const own = (n: ts.Node): string | undefined => {
    if (ts.isConstructorDeclaration(n)) return 'constructor'
    if (
      (ts.isFunctionDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isGetAccessorDeclaration(n) ||
        ts.isSetAccessorDeclaration(n) ||
        ts.isClassDeclaration(n)) &&
      n.name
    )
      return n.name.getText()
    if (
      (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) &&
      (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) || ts.isPropertyDeclaration(n.parent))
    )
      return n.parent.name.getText()
    if (ts.isFunctionExpression(n) && n.name) return n.name.text
    return undefined
  }
  if (!ts.isFunctionLike(node) && !ts.isClassDeclaration(node)) return undefined
  const parts: string[] = []
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isFunctionLike(n) || ts.isClassDeclaration(n)) parts.unshift(own(n) ?? '(anonymous)')
  }
  return parts.join('.')
}

export interface Sizes {
  lines: number
  /** Lines of each function (declaration, method, accessor, arrow, expression), first to last line; the longest of a name. */
  functions: Map<string, number>
}

/** Lines of a TypeScript source and of every function in it. */
export function sizes(text: string, fileName = 'file.ts'): Sizes {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const functions = new Map<string, number>()
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line
      const name = nameOf(node)!
      functions.set(name, Math.max(functions.get(name) ?? 0, last - first + 1))
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return { lines: lineCount(text), functions }
}
