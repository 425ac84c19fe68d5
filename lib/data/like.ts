import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from '../core/atomic.ts'
import { readJsonFile } from '../core/json-file.ts'

/**
 * `like.json`: a run started with `--like <baseline>`: which baseline it repeats, the flags
 * taken from it, and what could not be repeated as it was (a version no longer in the
 * catalog, a variant gone). The comparison section of the report prints it.
 */
export const LIKE_FILE = 'like.json'

export const likeSchema = z
  .object({
    baseline: z.string().min(1),
    flags: z.record(z.string()),
    notes: z.array(z.string()),
  })
  .strict()

export type LikeRecord = z.infer<typeof likeSchema>

export function readLike(runDir: string): LikeRecord | undefined {
  return readJsonFile(join(runDir, LIKE_FILE), likeSchema, 'Restore it, or delete it (the report then does not say which baseline the run repeated)')
}

export function writeLike(runDir: string, like: LikeRecord): void {
  writeFileAtomic(join(runDir, LIKE_FILE), JSON.stringify(likeSchema.parse(like), null, 2) + '\n')
}
