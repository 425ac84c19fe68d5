/**
 * Number expressions of claims.yaml: a plain number, or a string of arithmetic over
 * figure ids and numbers with + - * / and parentheses, operators separated by spaces
 * (figure ids contain hyphens: s000-nginx-pool-ratio). A small recursive-descent
 * parser; nothing is ever passed to eval.
 *
 *   expr   := term (('+' | '-') term)*
 *   term   := factor (('*' | '/') factor)*
 *   factor := number | figure-id | '(' expr ')' | '-' factor
 */

/** What an expression can refer to: a figure's value by id. */
export type FigureValues = ReadonlyMap<string, { value: unknown }>

export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'id'; id: string }
  | { kind: 'neg'; arg: Expr }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr }

/** A figure id as the header of claims.yaml defines it. */
export const FIGURE_ID = /^s[0-9]{3}-[a-z0-9-]+$/
const NUMBER = /^\d+(\.\d+)?([eE][+-]?\d+)?$|^\.\d+$/

/** A problem in an expression: the message says what and where, in words. */
export class ExprError extends Error {
  override name = 'ExprError'
}

function tokenize(text: string): string[] {
  // Parentheses are tokens of their own even without spaces; everything else is split on whitespace.
  return text
    .replace(/([()])/g, ' $1 ')
    .split(/\s+/)
    .filter(Boolean)
}

/** Parses an expression; unknown tokens and unbalanced parentheses are an ExprError. */
export function parseExpr(text: string): Expr {
  const tokens = tokenize(text)
  if (tokens.length === 0) throw new ExprError('empty expression')
  let i = 0
  const peek = () => tokens[i]
  const expr = (): Expr => {
    let left = term()
    while (peek() === '+' || peek() === '-') {
      const op = tokens[i++] as '+' | '-'
      left = { kind: 'bin', op, left, right: term() }
    }
    return left
  }
  const term = (): Expr => {
    let left = factor()
    while (peek() === '*' || peek() === '/') {
      const op = tokens[i++] as '*' | '/'
      left = { kind: 'bin', op, left, right: factor() }
    }
    return left
  }
  const factor = (): Expr => {
    const t = tokens[i++]
    if (t === undefined) throw new ExprError(`"${text}" ends where a number or figure id is expected`)
    if (t === '(') {
      const inner = expr()
      if (tokens[i++] !== ')') throw new ExprError(`"${text}" has a "(" without its ")"`)
      return inner
    }
    if (t === '-') return { kind: 'neg', arg: factor() }
    if (NUMBER.test(t)) return { kind: 'num', value: Number(t) }
    if (FIGURE_ID.test(t)) return { kind: 'id', id: t }
    if (/^[+*/)]$/.test(t)) throw new ExprError(`"${text}" has "${t}" where a number or figure id is expected`)
    throw new ExprError(`"${text}": "${t}" is neither a number nor a figure id (write operators with spaces around them)`)
  }
  const e = expr()
  if (i < tokens.length) throw new ExprError(`"${text}" has an unexpected "${tokens[i]}"`)
  return e
}

/** Figure ids an expression refers to, in order of appearance. */
export function exprIds(e: Expr): string[] {
  switch (e.kind) {
    case 'num':
      return []
    case 'id':
      return [e.id]
    case 'neg':
      return exprIds(e.arg)
    case 'bin':
      return [...exprIds(e.left), ...exprIds(e.right)]
  }
}

function figureValue(id: string, figures: FigureValues): number {
  const f = figures.get(id)
  if (!f) throw new ExprError(`unknown figure id "${id}" (figure ids are the ids in figures.yaml)`)
  if (typeof f.value !== 'number') throw new ExprError(`figure "${id}" is not a number (its value is ${JSON.stringify(f.value)})`)
  return f.value
}

export function evalExpr(e: Expr, figures: FigureValues): number {
  switch (e.kind) {
    case 'num':
      return e.value
    case 'id':
      return figureValue(e.id, figures)
    case 'neg':
      return -evalExpr(e.arg, figures)
    case 'bin': {
      const a = evalExpr(e.left, figures)
      const b = evalExpr(e.right, figures)
      return e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : a / b
    }
  }
}

/** A number of claims.yaml (plain or expression) as a finite number; ExprError otherwise. */
export function evalNumber(v: number | string, figures: FigureValues): number {
  const x = typeof v === 'number' ? v : evalExpr(parseExpr(v), figures)
  if (!Number.isFinite(x)) throw new ExprError(`"${v}" is not a finite number`)
  return x
}
