import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Every notebook and bench script a user runs (`_ts.mjs` is the loader, not a step). */
export const scripts = (root: string) =>
  ['notebooks', 'bench'].flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith('.mjs') && !f.startsWith('_'))
      .map((f) => `${d}/${f}`),
  )

/** Each script's `--help`, as a user sees it; a script whose --help fails is an error naming it. */
export async function collectHelp(root: string, parallel = 4): Promise<Map<string, string>> {
  const zx = join(root, 'node_modules/.bin/zx')
  const todo = scripts(root)
  const out = new Map<string, string>()
  const worker = async () => {
    for (let s = todo.shift(); s; s = todo.shift()) {
      try {
        const { stdout } = await run(zx, [s, '--help'], { cwd: root, timeout: 60_000, env: { ...process.env, FORCE_COLOR: '0' } })
        out.set(s, stdout.replace(/\s+$/, ''))
      } catch (e) {
        throw new Error(`${s} --help failed: ${(e as Error).message.split('\n')[0]}`)
      }
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return out
}
