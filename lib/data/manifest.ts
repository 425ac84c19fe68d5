import { join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { readJsonFile } from '../core/json-file.ts'
import { manifestSchema, type Manifest } from './schema.ts'

export const MANIFEST_FILE = 'manifest.json'

export const readManifest = (runDir: string): Manifest | undefined =>
  readJsonFile(join(runDir, MANIFEST_FILE), manifestSchema, 'Restore it or start a new run with another --out')

export function writeManifest(runDir: string, m: Manifest): void {
  writeFileAtomic(join(runDir, MANIFEST_FILE), JSON.stringify(manifestSchema.parse(m), null, 2) + '\n')
}
