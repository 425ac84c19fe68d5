import { existsSync, readFileSync } from 'node:fs'
import type { z } from 'zod'
import { userError } from './errors.ts'

/**
 * Reads a JSON file a run keeps beside its CSVs and validates it with a zod schema;
 * undefined when the file is absent. Bad JSON or the first schema problem is one line
 * `file: path: message. fix`.
 */
export function readJsonFile<T extends z.ZodTypeAny>(file: string, schema: T, fix: string): z.infer<T> | undefined {
  if (!existsSync(file)) return undefined
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw userError(file, `not valid JSON (${(e as Error).message})`, fix)
  }
  const r = schema.safeParse(json)
  if (!r.success) throw userError(file, `${r.error.issues[0]!.path.join('.') || 'file'}: ${r.error.issues[0]!.message}`, fix)
  return r.data
}
