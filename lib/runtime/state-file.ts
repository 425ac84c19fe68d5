import { renameSync } from 'node:fs'
import { displayPath } from '../core/paths.ts'
import type { Logger } from '../core/log.ts'

/**
 * Moves an unreadable state file aside (`<file>.corrupt-<time>`), never deletes it: it may
 * be the only list of what a crashed run left, and says where it went.
 */
export function keepAside(file: string, why: string, log: Logger): string {
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
  renameSync(file, aside)
  log.warn(
    `${displayPath(file)}: ${why}; kept as ${displayPath(aside)} and nothing it lists was touched. Check what it names (ps, ls), remove what is left, then delete that file`,
  )
  return aside
}
