import { readFileSync } from 'node:fs'
import { LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import { userError } from './errors.ts'
import { displayPath } from './paths.ts'

/**
 * Reads a YAML file and validates it with a zod schema. The first problem becomes a
 * one-line UserError `file:line: path: message. fix`, with the line of the offending node.
 */
export function readYamlFile<T extends z.ZodTypeAny>(file: string, schema: T, fix: string): z.infer<T> {
  const shown = displayPath(file)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw userError(shown, 'cannot read file', fix)
  }
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines })
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    throw userError(`${shown}:${e.linePos?.[0]?.line ?? 1}`, `invalid YAML (${e.message.split('\n')[0]})`, fix)
  }
  const parsed = schema.safeParse(doc.toJS())
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const path = issue.path
    // Walk up to the nearest node that exists to report its line.
    let line = 1
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined
      if (node?.range) {
        line = lines.linePos(node.range[0]).line
        break
      }
    }
    throw userError(`${shown}:${line}`, `${path.join('.') || '(top)'}: ${issue.message}`, fix)
  }
  return parsed.data
}
