/**
 * What the benches that plant a known cost share (bench/year-later.mjs, bench/work.mjs): the
 * plant in HAProxy's article config, a copy of this checkout with it in place ("today's
 * config" of a planted run), and one run of run-all that is reused when finished.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { userError } from '../core/errors.ts'
import { displayPath, repoRoot } from '../core/paths.ts'
import { readManifest } from '../data/manifest.ts'
import { type RunAllCall, runAllArgv } from '../cli/run-all-argv.ts'

/** The proxy whose config the benches plant a cost in. */
export const PLANT_PROXY = 'haproxy'

/** The catalog's article config of the plant's proxy. */
export const articleConfig = (): string => readFileSync(join(repoRoot, 'stacks', PLANT_PROXY, 'templates', 'article.cfg'), 'utf8')

/** HAProxy's article config with `rules` (http-request lines) after the frontend's bind line, under a comment naming `bench`. */
export function plantAfterBind(article: string, rules: readonly string[], bench: string): string {
  const lines = article.split('\n')
  const bind = lines.findIndex((l, i) => /^\s+bind\s/.test(l) && lines.slice(0, i).some((p) => /^frontend\s/.test(p)))
  if (bind < 0) throw new Error('the article config has no frontend bind line to plant after')
  lines.splice(bind + 1, 0, `    # planted by ${bench}: a known cost per request`, ...rules.map((r) => `    ${r}`))
  return lines.join('\n')
}

/** Writes a planted config, its folder made. */
export function writePlanted(file: string, config: string): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, config)
}

/**
 * A copy of this checkout's tracked files (as they are in the working tree) under <out>/planted-checkout,
 * with the planted article config in place of the catalog's.
 */
export function plantedCheckout(out: string, planted: string): string {
  const root = join(out, 'planted-checkout')
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).stdout.split('\0').filter(Boolean)
  for (const f of files) {
    if (!existsSync(join(repoRoot, f))) continue
    mkdirSync(dirname(join(root, f)), { recursive: true })
    copyFileSync(join(repoRoot, f), join(root, f))
  }
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'))
  copyFileSync(planted, join(root, 'stacks', PLANT_PROXY, 'templates', 'article.cfg'))
  return root
}

/** One run through run-all: reused when finished, resumed when begun; a failure is one line naming its folder. */
export function runStep(name: string, call: RunAllCall, env: NodeJS.ProcessEnv, started: number): void {
  const m = readManifest(call.out)
  if (m?.finished) {
    process.stdout.write(`${name}: done earlier, reused (${displayPath(call.out)})\n`)
    return
  }
  process.stdout.write(`${name}: ${displayPath(call.out)}${m ? ' (resumed)' : ''} · ${Math.round((Date.now() - started) / 1000)} s elapsed\n`)
  const r = spawnSync('npx', runAllArgv({ ...call, resume: !!m }), { stdio: 'inherit', cwd: call.root ?? repoRoot, env })
  if (r.status !== 0)
    throw userError(
      displayPath(call.out),
      `run-all exited ${r.status ?? r.signal}`,
      'Fix what it printed, then run this again: finished runs are reused, this one resumes',
    )
}

/** Promotes a finished run as baseline `id` into the baselines folder `env` names, unless it is there. */
export function promoteOnce(runDir: string, id: string, env: NodeJS.ProcessEnv): void {
  if (existsSync(join(env.PROXYBENCH_BASELINES_DIR ?? '', id, 'manifest.json'))) return
  const p = spawnSync('npx', ['zx', join(repoRoot, 'notebooks/promote.mjs'), runDir, '--id', id], { stdio: 'inherit', cwd: repoRoot, env })
  if (p.status !== 0) throw userError(displayPath(runDir), `promote exited ${p.status}`, 'Fix what it printed, then run this again')
}
