import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { loadStack, stackFile, stackSchema, suiteOf, type ProxyName } from '../catalog/stack.ts'
import { repinText, type Repin } from '../catalog/upkeep.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import type { Logger } from '../core/log.ts'
import type { ComponentRow } from './component.ts'
import { setup } from './doctor.ts'

/** One pin `npm run catalog -- --update` changed: what it was and what it is now. */
export interface PinChange {
  proxy: ProxyName
  version: string
  from: string
  to: string
}

/** The new pin of a substituted row: the build setup measured (verified by apt's signatures, hashed here). */
export function repinOf(row: ComponentRow, suite: boolean): Repin {
  return { version: row.version, sha256: row.sha256, ...(suite && row.build ? { deb_version: row.build } : {}) }
}

/**
 * `npm run catalog -- --update`: setup resolves every version (installing as root), and each
 * pinned build that is gone or changed is re-pinned to the build it substituted, in
 * stacks/<proxy>/stack.yaml, checked against the schema before the file is replaced.
 */
export async function updatePins(proxies: readonly ProxyName[], log: Logger): Promise<PinChange[]> {
  const rows = await setup({ proxies, install: true, log, engine: false })
  const changes: PinChange[] = []
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const subs = rows.filter((r) => r.component === proxy && r.status === 'substituted')
    if (subs.length === 0) continue
    const pins = subs.map((r) => repinOf(r, suiteOf(stack.versions.find((v) => v.version === r.version)!) !== null))
    const file = stackFile(proxy)
    const text = repinText(readFileSync(file, 'utf8'), pins, file)
    const checked = stackSchema.safeParse(parse(text))
    if (!checked.success) throw new Error(`${file}: the re-pinned catalog does not validate: ${checked.error.issues[0]?.message}`)
    writeFileAtomic(file, text)
    for (const r of subs)
      changes.push({ proxy, version: r.version, from: r.pinned?.build ?? '?', to: `${r.build ?? ''} sha256 ${r.sha256.slice(0, 12)}`.trim() })
  }
  return changes
}
