import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../../core/atomic.ts'
import { imagesDir } from './names.ts'

/** The records of built and pulled images (~/.cache/proxybench/images/images.json) that the Docker runtime looks images up in. */

export const recordsFile = () => join(imagesDir(), 'images.json')

/** One image per component version, as the runtime looks it up. */
export interface ImageRecord {
  component: string
  version: string
  mode: 'offline' | 'official'
  /** Tag (offline: proxybench/<component>:<version>) or pulled reference. */
  image: string
  /** Image id, `sha256:…`. */
  id: string
  /** Repository digest of a pulled image; null for a local build. */
  digest: string | null
  /** The argv[0] values (host paths, or `wrk`) this image serves. */
  binaries: string[]
  /** Where that binary is inside the image (offline: the host path). */
  image_binary: string
  /** Environment keys not passed into the container. */
  drop_env: string[]
  /** Hash of everything the build used; a change rebuilds. */
  input: string
  seconds: number | null
}

/** One row of 02-stacks' table. */
export interface ImageRow {
  component: string
  version: string
  image: string
  id: string
  status: 'cached' | 'built' | 'imported' | 'pulled' | 'failed' | 'skipped'
  seconds: number
  digest?: string | null
  note?: string
}

/** A record keyed by component and version; the newest wins. */
export function readImageRecords(file = recordsFile()): ImageRecord[] {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ImageRecord[]
  } catch {
    return []
  }
}

/** Newest wins, per component and version and per binary (`wrk` moves to the newest generator image). */
export function mergeRecords(old: ImageRecord[], add: ImageRecord[]): ImageRecord[] {
  const key = (r: ImageRecord) => `${r.component}@${r.version}`
  const map = new Map(old.map((r) => [key(r), r]))
  for (const r of add) {
    for (const [k, o] of map) if (o.binaries.some((b) => r.binaries.includes(b))) map.delete(k)
    map.set(key(r), r)
  }
  return [...map.values()].sort((a, b) => key(a).localeCompare(key(b)))
}

/** Adds records to the file, newest winning (mergeRecords). */
export function writeImageRecords(add: ImageRecord[], file = recordsFile()): void {
  writeFileAtomic(file, JSON.stringify(mergeRecords(readImageRecords(file), add), null, 2) + '\n')
}

/** The record whose image serves this argv[0] (a host path, or `wrk`). */
export function imageFor(records: readonly ImageRecord[], argv0: string): ImageRecord | undefined {
  return records.find((r) => r.binaries.includes(argv0))
}
