import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'

/**
 * A temp folder whose `cache/` is PROXYBENCH_CACHE for this test file (real files, no mocks);
 * the variable is restored and the folder removed after the file's tests.
 */
export function tempCache(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const saved = process.env.PROXYBENCH_CACHE
  process.env.PROXYBENCH_CACHE = join(dir, 'cache')
  after(() => {
    if (saved === undefined) delete process.env.PROXYBENCH_CACHE
    else process.env.PROXYBENCH_CACHE = saved
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}
