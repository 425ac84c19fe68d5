import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { cacheDir, certsDir, repoRoot } from '../core/paths.ts'
import { seededRandom } from '../core/shuffle.ts'
import { formatTable } from '../core/text-table.ts'
import { readManifest } from '../data/manifest.ts'
import { readTable, TABLES } from '../data/tables.ts'
import type { SeriesName } from '../data/series.ts'
import { isAlive } from '../runtime/native.ts'

const NOTEBOOK: Record<SeriesName, string> = {
  pooling: '03-pooling',
  work: 'work',
  tls: '04-tls',
  ws: '05-websocket',
  versions: '06-versions',
  scenarios: '08-scenarios',
  l4: '07-l4',
  h2: '09-h2',
  h3: '11-h3',
  resumption: '10-resumption',
  bisect: 'bisect',
  capacity: 'capacity',
}

export interface KillResumeOptions {
  profile: string
  series: SeriesName
  proxies: string
  runtime: 'native' | 'docker'
  kills: number
  /** Each kill lands this many seconds (uniform, from the seed) after its invocation started. */
  minS: number
  maxS: number
  seed: number
  out: string
  log: Logger
}

export interface KillRecord {
  n: number
  atS: number
  rowsBefore: number
  rowsAfter: number
  /** Rows seen before the kill and missing after it. */
  lost: number
  /** Rows that appeared between the last look before the kill and the harness's exit. */
  afterKill: number
}

export interface KillResumeResult {
  kills: KillRecord[]
  finalRows: number
  /** Rows seen at any point and missing at the end. */
  lost: number
  /** Cells measured twice under one key (a resume that redid a done repeat). */
  duplicates: number
  /** Rows blaming a role for an exit the harness caused. */
  blamed: number
  orphans: string[]
  invocations: number
  finalExit: number | null
  ok: boolean
  table: string
}

type Seen = Map<string, string>

/** The one line of an invocation that found another run holding the machine's lock. */
const BUSY = /is measuring on this machine/

/** Every row of the run by table, key and start time (a re-measured repeat has another key). */
function rowsOf(dir: string): Seen {
  const out: Seen = new Map()
  for (const t of Object.values(TABLES)) {
    let rows: unknown[] = []
    try {
      rows = readTable(dir, t as never)
    } catch {}
    for (const r of rows as { started_at: string; reason: string }[]) out.set(`${t.name}|${t.key(r as never)}|${r.started_at}`, r.reason)
  }
  return out
}

function statePids(harnessPid: number): number[] {
  const dir = join(cacheDir(), 'native')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      try {
        const s = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { harness: { pid: number }; roles: { pid: number }[] }
        return s.harness.pid === harnessPid ? s.roles.map((r) => r.pid) : []
      } catch {
        return []
      }
    })
}

/** What the harnesses of this run left: role processes, cgroups, state files, key copies, containers. */
export function orphansOf(runId: string, harnessPids: readonly number[], rolePids: readonly number[]): string[] {
  const left = rolePids.filter(isAlive).map((p) => `process ${p}`)
  for (const pid of harnessPids) {
    for (const base of ['/sys/fs/cgroup/cpuacct/proxybench', '/sys/fs/cgroup/proxybench']) {
      if (existsSync(join(base, `${runId}-${pid}`))) left.push(`cgroup ${join(base, `${runId}-${pid}`)}`)
    }
    if (existsSync(join(cacheDir(), 'native', `${runId}-${pid}.json`))) left.push(`state file ${runId}-${pid}.json`)
    if (existsSync(join(certsDir, `.docker-${pid}`))) left.push(`key copies certs/.docker-${pid}`)
  }
  const ps = spawnSync('docker', ['ps', '-a', '-q', '--filter', `label=proxybench.run`, '--format', '{{.Label "proxybench.run"}}'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (ps.status === 0)
    left.push(
      ...ps.stdout
        .split('\n')
        .filter((l) => l.startsWith(`${runId}-`))
        .map((l) => `container of ${l}`),
    )
  return left
}

/** One invocation of the series' notebook on `o.out` (a resume when `resume`), its output kept. */
function startInvocation(o: KillResumeOptions, resume: boolean) {
  const args = [
    join(repoRoot, 'node_modules', 'zx', 'build', 'cli.js'),
    `notebooks/${NOTEBOOK[o.series]}.mjs`,
    '--profile',
    o.profile,
    '--proxies',
    o.proxies,
    '--runtime',
    o.runtime,
    '--no-report',
    '--out',
    o.out,
    '--seed',
    String(o.seed),
    ...(resume ? ['--resume'] : []),
  ]
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  let text = ''
  child.stdout!.on('data', (d: Buffer) => (text += d))
  child.stderr!.on('data', (d: Buffer) => (text += d))
  const exit = new Promise<number | null>((r) => child.once('exit', (c, s) => r(c ?? (s ? 137 : null))))
  return { child, exit, output: () => text }
}

/**
 * Starts a run, kill -9s it at random moments `kills` times, each time resuming it, then
 * lets a last resume finish; checks that no completed row is lost, none is redone or
 * blames a killed role, and nothing is left behind (docs/reliability.md).
 */
export async function runKillResume(o: KillResumeOptions): Promise<KillResumeResult> {
  const rand = seededRandom(o.seed)
  const start = (resume: boolean) => startInvocation(o, resume)
  const everSeen: Seen = new Map()
  const harnessPids: number[] = []
  const rolePids = new Set<number>()
  const kills: KillRecord[] = []
  for (let n = 1; n <= o.kills; n++) {
    const atS = Math.round((o.minS + rand() * (o.maxS - o.minS)) * 10) / 10
    const run = start(existsSync(join(o.out, 'manifest.json')))
    harnessPids.push(run.child.pid!)
    const t0 = Date.now()
    const ended: { code?: number | null } = {}
    void run.exit.then((c) => (ended.code = c))
    let before: Seen = new Map()
    while (!('code' in ended) && Date.now() - t0 < atS * 1000) {
      before = rowsOf(o.out)
      for (const p of statePids(run.child.pid!)) rolePids.add(p)
      await new Promise((r) => setTimeout(r, 50))
    }
    if ('code' in ended && ended.code === 2 && BUSY.test(run.output())) {
      // Another run holds the machine's lock: this invocation never started; try again, not a kill.
      o.log.info(`kill ${n}: another run holds the run lock; waiting`)
      await new Promise((r) => setTimeout(r, 5000))
      n--
      continue
    }
    if ('code' in ended) {
      o.log.info(`kill ${n}: the run ended (exit ${ended.code}) before ${atS} s; no more kills`)
      if (ended.code !== 0)
        throw userError(
          `kill ${n}`,
          `the run exited ${ended.code} before it was killed (${run.output().trim().split('\n').slice(-1)[0]})`,
          'Fix that, or wait for the other run to finish, and start again with another --out',
        )
      break
    }
    run.child.kill('SIGKILL')
    await run.exit
    const after = rowsOf(o.out)
    for (const [k, v] of before) everSeen.set(k, v)
    const rec: KillRecord = {
      n,
      atS,
      rowsBefore: before.size,
      rowsAfter: after.size,
      lost: [...before.keys()].filter((k) => !after.has(k)).length,
      afterKill: [...after.keys()].filter((k) => !before.has(k)).length,
    }
    kills.push(rec)
    o.log.info(`kill ${n} at ${atS} s: ${rec.rowsBefore} rows before, ${rec.rowsAfter} after, ${rec.lost} lost`)
  }
  const { last, finalExit } = await lastResume(start, o, harnessPids, rolePids)
  if (finalExit !== 0) o.log.warn(`the last resume exited ${finalExit}: ${last.output().trim().split('\n').slice(-3).join(' | ')}`)
  return killResumeResult(o, kills, everSeen, finalExit, harnessPids, rolePids)
}

type Invocation = ReturnType<typeof startInvocation>

/** The last resume, run to its end (again while another run holds the lock), watching the pids it starts. */
async function lastResume(
  start: (resume: boolean) => Invocation,
  o: KillResumeOptions,
  harnessPids: number[],
  rolePids: Set<number>,
): Promise<{ last: Invocation; finalExit: number | null }> {
  let last: Invocation
  let finalExit: number | null
  for (;;) {
    last = start(existsSync(join(o.out, 'manifest.json')))
    const pid = last.child.pid!
    harnessPids.push(pid)
    const poll = setInterval(() => {
      for (const p of statePids(pid)) rolePids.add(p)
    }, 200)
    finalExit = await last.exit
    clearInterval(poll)
    if (!(finalExit === 2 && BUSY.test(last.output()))) break
    await new Promise((r) => setTimeout(r, 5000))
  }
  return { last, finalExit }
}

/** What the kills and the last resume left: rows lost or measured twice, rows blaming a killed role, orphans; and the table of it. */
function killResumeResult(
  o: KillResumeOptions,
  kills: KillRecord[],
  everSeen: Seen,
  finalExit: number | null,
  harnessPids: number[],
  rolePids: Set<number>,
): KillResumeResult {
  const final = rowsOf(o.out)
  const lost = [...everSeen.keys()].filter((k) => !final.has(k)).length
  const keys = [...final.keys()].map((k) => k.slice(0, k.lastIndexOf('|')))
  const duplicates = keys.length - new Set(keys).size
  const blamed = [...final.values()].filter((reason) => /exited during|interrupted|SIGKILL|SIGTERM/.test(reason)).length
  const m = readManifest(o.out)
  const orphans = m ? orphansOf(m.run_id, harnessPids, [...rolePids]) : ['no manifest']
  const invocations = m?.invocations.length ?? 0
  const ok = finalExit === 0 && lost === 0 && duplicates === 0 && blamed === 0 && orphans.length === 0 && kills.every((k) => k.lost === 0 && k.afterKill === 0)
  const table = [
    formatTable(
      kills.map((k) => ({
        kill: k.n,
        'at s': k.atS.toFixed(1),
        'rows before': k.rowsBefore,
        'rows after': k.rowsAfter,
        lost: k.lost,
        'rows after the kill': k.afterKill,
      })),
      ['kill', 'at s', 'rows before', 'rows after', 'lost', 'rows after the kill'],
    ),
    '',
    `${kills.length} kill -9 + --resume (${o.profile}, ${o.series}, ${o.proxies}, ${o.runtime}), then a last resume: exit ${finalExit}, ${final.size} rows, ${invocations} invocations in the manifest`,
    `completed rows lost: ${lost}; rows written after a kill: ${kills.reduce((s, k) => s + k.afterKill, 0)}; repeats measured twice: ${duplicates}; rows blaming a killed role: ${blamed}`,
    `orphans (processes, cgroups, state files, containers, key copies): ${orphans.length}${orphans.length ? ` (${orphans.slice(0, 5).join(', ')})` : ''}`,
    ok ? 'OK' : 'FAILED',
  ].join('\n')
  return { kills, finalRows: final.size, lost, duplicates, blamed, orphans, invocations, finalExit, ok, table }
}
