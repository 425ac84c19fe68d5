import { createHash } from 'node:crypto'
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cacheDir } from './paths.ts'

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex')
}

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256')
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer)
  return h.digest('hex')
}

/**
 * sha256 of a file, remembered by path, size and mtime so that a second doctor run
 * does not re-read a 200 MB Traefik binary.
 */
export async function sha256FileCached(file: string): Promise<string> {
  const st = statSync(file)
  const key = sha256Text(`${file}\0${st.size}\0${st.mtimeMs}`)
  const dir = join(cacheDir(), 'sha256')
  const stamp = join(dir, key)
  try {
    return readFileSync(stamp, 'utf8').trim()
  } catch {
    const sum = await sha256File(file)
    mkdirSync(dir, { recursive: true })
    writeFileSync(stamp, sum)
    return sum
  }
}
