import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import { manifestSchema, type Manifest } from './schema.ts'

export const MANIFEST_FILE = 'manifest.json'

export function readManifest(runDir: string): Manifest | undefined {
  const file = join(runDir, MANIFEST_FILE)
  if (!existsSync(file)) return undefined
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw userError(file, `not valid JSON (${(e as Error).message})`, 'Restore it or start a new run with another --out')
  }
  const r = manifestSchema.safeParse(json)
  if (!r.success)
    throw userError(file, `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`, 'Restore it or start a new run with another --out')
  return r.data
}

export function writeManifest(runDir: string, m: Manifest): void {
  writeFileAtomic(join(runDir, MANIFEST_FILE), JSON.stringify(manifestSchema.parse(m), null, 2) + '\n')
}
