import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { loadStack, newestVersion, type ProxyName } from '../catalog/stack.ts'
import { pinnedVersion } from '../catalog/version-choice.ts'
import { writeOutputFolder } from '../core/atomic.ts'
import { stacksDir } from '../core/paths.ts'
import { userError } from '../core/errors.ts'
import { BASELINES_DIR } from '../data/baselines.ts'
import { readManifest } from '../data/manifest.ts'
import { TEMPLATES_DIR, THEN_DIR, writeThenSides } from '../data/then.ts'
import { resolveThenBuild } from '../setup/then-builds.ts'
import type { ThenPlan, ThenProxy } from '../series/then.ts'
import type { RunOptions } from './options.ts'

/**
 * Keeps the templates of the run's proxies as they are now (results/<run>/templates/<proxy>/),
 * the first time only: promote keeps them, and a run `--like` this one renders its then
 * configs from them.
 */
export function keepTemplates(runDir: string, proxies: readonly ProxyName[]): void {
  for (const proxy of proxies) {
    const to = join(runDir, TEMPLATES_DIR, proxy)
    if (existsSync(to)) continue
    const from = join(stacksDir, proxy, 'templates')
    const files = readdirSync(from, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(from, f)).isFile())
    const outputs = files.map((f) => ({ path: f, render: () => readFileSync(join(from, f)) }))
    writeOutputFolder(to, outputs, { tmp: `${to}.tmp-${process.pid}`, old: `${to}.old-${process.pid}` })
  }
}

/**
 * The then side of a --like run: per proxy, the baseline's build found by the rule of
 * lib/setup/then-builds.ts, its templates, and the record then/sides.json. Each side is a
 * line in the log; one that is a substitute or not runnable is a warning.
 */
export async function prepareThen(o: RunOptions, runDir: string): Promise<ThenPlan | undefined> {
  const pair = o.plan.pair
  if (!pair) return undefined
  const baseDir = join(BASELINES_DIR, pair.baseline)
  const manifest = readManifest(baseDir)
  if (!manifest) throw userError(`--like ${pair.baseline}`, `${baseDir} has no manifest.json`, 'Promote the run again: npm run promote -- results/<run-id>')
  const sides = new Map<string, ThenProxy>()
  for (const proxy of o.proxies) {
    const version = pair.versions[proxy]
    if (!version) continue
    const stack = loadStack(proxy)
    const now = pinnedVersion(stack, o.plan.pinned) ?? newestVersion(stack)
    const sha256 = manifest.components.find((c) => c.component === proxy && c.version === version)?.sha256 ?? null
    const templates = join(baseDir, TEMPLATES_DIR, proxy)
    const kept = existsSync(templates)
    const t = await resolveThenBuild(stack, {
      proxy,
      baseline: pair.baseline,
      version,
      sha256,
      now,
      pairSame: pair.pairSame,
      configs: kept ? 'baseline' : 'today',
    })
    const line = `then ${t.side.note}${kept ? '' : `; configs: today's templates (${pair.baseline} kept none)`}`
    if (t.side.how === 'substitute' || t.side.how === 'not runnable') o.log.warn(line)
    else o.log.info(line)
    sides.set(proxy, { side: t.side, stackVersion: t.stackVersion, templates: kept ? templates : null, ...(t.build ? { build: t.build } : {}) })
  }
  mkdirSync(join(runDir, THEN_DIR, 'raw'), { recursive: true })
  writeThenSides(runDir, { baseline: pair.baseline, pair_same: pair.pairSame, sides: [...sides.values()].map((s) => s.side) })
  return { baseline: pair.baseline, sides }
}
