import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { loadRun, type RunData } from './run-data.ts'
import { MANIFEST_FILE } from './manifest.ts'
import { BISECT_FILE } from './bisect.ts'
import { LIKE_FILE } from './like.ts'
import { TEMPLATES_DIR, THEN_DIR, THEN_KEPT } from './then.ts'
import { HANDSHAKES, MEASUREMENTS, TCP, WEBSOCKETS } from './tables.ts'
import { replaceDir } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { displayPath, repoRoot } from '../core/paths.ts'

/**
 * Baselines: promoted runs (`baselines/runs/<id>/`, the CSVs and manifest of a run,
 * nothing else) and the published one of the seed article (`2026-08-23`: its tables did
 * not survive, so it is a list of quoted figures mapped onto cells, `published.yaml`).
 */
/** PROXYBENCH_BASELINES_DIR: another folder of baselines (a test's promoted runs, a team's shared ones) instead of baselines/runs. */
export const BASELINES_DIR = process.env.PROXYBENCH_BASELINES_DIR ? resolve(process.env.PROXYBENCH_BASELINES_DIR) : join(repoRoot, 'baselines', 'runs')
export const PUBLISHED_FILE = 'published.yaml'

/** What a promoted baseline keeps: data and the templates it rendered, never raw tool output, rendered configs or keys. */
// bisect.json and like.json: what the report needs to read a bisect's rows and a --like run's differences.
const TABLE_FILES = [MEASUREMENTS.file, HANDSHAKES.file, WEBSOCKETS.file, TCP.file]
// then/: the baseline's builds measured beside the run's (lib/data/then.ts), read by the history's chain of pairs.
const KEPT = [MANIFEST_FILE, ...TABLE_FILES, BISECT_FILE, LIKE_FILE, ...TABLE_FILES.map((f) => join(THEN_DIR, f)), ...THEN_KEPT]

export type Baseline = { id: string; dir: string; kind: 'run'; run: RunData } | { id: string; dir: string; kind: 'published'; file: string }

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export function listBaselines(dir = BASELINES_DIR): { id: string; kind: 'run' | 'published' }[] {
  if (!existsSync(dir)) return []
  const kindOf = (id: string): 'run' | 'published' | null =>
    existsSync(join(dir, id, PUBLISHED_FILE)) ? 'published' : existsSync(join(dir, id, MANIFEST_FILE)) ? 'run' : null
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && ID.test(e.name))
    .flatMap((e) => {
      const kind = kindOf(e.name)
      return kind ? [{ id: e.name, kind }] : []
    })
    .sort((a, b) => a.id.localeCompare(b.id))
}

export function loadBaseline(id: string, dir = BASELINES_DIR): Baseline {
  const known = listBaselines(dir)
  const hit = known.find((b) => b.id === id)
  if (!hit)
    throw userError(
      `--baseline ${id}`,
      `unknown baseline (known: ${known.map((b) => b.id).join(', ') || 'none'})`,
      `Use one of those, or promote a run: npm run promote -- results/<run-id>`,
    )
  const d = join(dir, id)
  return hit.kind === 'published' ? { id, dir: d, kind: 'published', file: join(d, PUBLISHED_FILE) } : { id, dir: d, kind: 'run', run: loadRun(d) }
}

/**
 * Copies a run's CSVs and manifest into baselines/runs/<id>/ after validating them
 * (every row through its schema), through a temp dir beside the target: a bad run promotes
 * nothing. With --force the swap is by rename (the old one aside, the new one in, then the
 * old one removed), so a crash at any point leaves one complete baseline, never none.
 * The temp names start with a dot: never listed as baselines.
 */
export function promote(runDir: string, o: { id?: string; force?: boolean; dir?: string; log: Logger; rename?: typeof renameSync }): string {
  const rename = o.rename ?? renameSync
  const run = loadRun(runDir)
  const id = o.id ?? run.manifest.run_id
  if (!ID.test(id)) throw userError(`--id ${id}`, 'not a usable baseline id', 'Use letters, digits, dot, dash and underscore (e.g. 2026-11-30-quick)')
  if (run.measurements.length + run.handshakes.length + run.websocket.length === 0) {
    throw userError(displayPath(runDir), 'has no measured rows', 'Promote a run that measured something')
  }
  if (run.manifest.finished === null) o.log.warn(`promote: ${displayPath(runDir)} did not finish; its completed rows are promoted`)
  const dir = o.dir ?? BASELINES_DIR
  const target = join(dir, id)
  if (existsSync(target) && !o.force) throw userError(displayPath(target), 'exists', 'Choose another --id, or pass --force to replace it')
  const tmp = join(dir, `.${id}.new-${process.pid}`)
  const old = join(dir, `.${id}.old-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  try {
    mkdirSync(tmp, { recursive: true })
    for (const f of KEPT) {
      if (!existsSync(join(runDir, f))) continue
      mkdirSync(dirname(join(tmp, f)), { recursive: true })
      copyFileSync(join(runDir, f), join(tmp, f))
    }
    // The templates the run rendered: a later run --like this baseline renders its then configs from them.
    if (existsSync(join(runDir, TEMPLATES_DIR))) cpSync(join(runDir, TEMPLATES_DIR), join(tmp, TEMPLATES_DIR), { recursive: true })
    loadRun(tmp)
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true })
    throw e
  }
  try {
    replaceDir(tmp, target, old, rename)
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true })
    throw e
  }
  return target
}
