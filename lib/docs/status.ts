import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkDocs, docPages } from './check.ts'
import { blockNames, regenerate } from './generate.ts'
import { collectHelp } from './help.ts'

/** The pages whose generated blocks differ from the code's output now, and every check's problems. */
export async function docsStatus(root: string) {
  const help = await collectHelp(root)
  const stale: { page: string; text: string }[] = []
  for (const page of docPages(root)) {
    const md = readFileSync(join(root, page), 'utf8')
    if (!blockNames(md).length) continue
    const text = regenerate(root, page, help)
    if (text !== md) stale.push({ page, text })
  }
  const scripts = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
  return { stale, problems: checkDocs({ root, scripts, help }) }
}
