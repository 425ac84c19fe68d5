import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { writeFileAtomic } from '../core/atomic.ts'
import { dirname, join } from 'node:path'
import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Handshake, Measurement } from '../data/schema.ts'
import { backendStats } from '../roles/backend.ts'
import { Callgrind, callgrindPid, callgrindPrefix, valgrindVersion } from '../roles/callgrind.ts'
import { loadgenArgv, loadgenRequests, parseLoadgenOutput, requestsArgv, type HandshakeResult, type RequestsResult } from '../roles/loadgen.ts'
import { exec, lastLine } from '../core/exec.ts'
import { UserError } from '../core/errors.ts'
import { workEdits, type ConfigEdit } from '../catalog/stack.ts'
import { NativeRuntime } from '../runtime/native.ts'
import { checkFromGenerator, withVerifiedStack, type CellContext, type CellPlan, type RunningStack } from './cell.ts'
import { handshakeRow, measurementRow, outcomes, type RowFill } from './rows.ts'
import { fitWork, type Batch, type IdleStretch, type Round, type WorkFit } from './work-fit.ts'

/**
 * The work of a cell (series work, docs/method/work.md): the cell's own proxy, config and
 * version under Valgrind's callgrind with one worker, and its user-space instructions per
 * request (or per full handshake) counted between a small and a large batch of verified
 * requests at a closed load of one connection. Time is not measured here: the timed series price it.
 */

/** What a work cell counts per: a keep-alive request, or a full handshake and its one GET. */
export type WorkUnit = 'request' | 'handshake'

/** Batches and rounds of a cell: the profile's (lib/catalog/profiles.ts `work`). */
export interface WorkPlan {
  rounds: number
  small: number
  large: number
}

/**
 * What fixes the code paths a CPU would pick, for every proxy under callgrind: OpenSSL's AVX
 * and every leaf-7 feature (AVX2, BMI, ADX, SHA, AVX-512) masked, glibc's string functions
 * kept off AVX; Valgrind hides AVX-512 itself. What stays (SSE4.2, AES-NI, PCLMUL) every
 * x86-64 server of the last decade has. A Go proxy's own list is in its stack.yaml `work.env`.
 */
export const CPU_PATH_ENV: Readonly<Record<string, string>> = {
  OPENSSL_ia32cap: '~0x1000000000000000:~0xffffffffffffffff',
  GLIBC_TUNABLES: 'glibc.cpu.hwcaps=-AVX_Usable,-AVX2_Usable,-AVX,-AVX2,-AVX512F,-ERMS,-FSRM,-BMI1,-BMI2',
}

/** Threads a counted proxy runs: one worker (the one deviation from its config, stated in every row). */
export const COUNTED_THREADS = 1

/** The CPU features of this machine the masks leave or take, for the row: `aes pclmulqdq sse4_2; avx2 masked`. */
export function cpuFeatures(cpuinfo = readCpuinfo()): string {
  const flags = new Set(/^flags\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.split(/\s+/) ?? [])
  const kept = ['sse4_2', 'aes', 'pclmulqdq'].filter((f) => flags.has(f))
  const masked = ['avx', 'avx2', 'avx512f', 'sha_ni', 'bmi2'].filter((f) => flags.has(f))
  return `cpu ${kept.join(' ') || 'none of sse4_2/aes/pclmulqdq'}${masked.length ? `; masked ${masked.join(' ')}` : ''}`
}

const readCpuinfo = () => (existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '')

/**
 * Where a cell is counted: on the run's native runtime; a Docker run counts on a native runtime
 * of its own (its images carry no Valgrind; the catalog's binary of the version is the same
 * file, sha256 and all), stopped after the cell. Roles on several hosts are not countable here.
 */
async function countingContext(ctx: CellContext): Promise<{ ctx: CellContext; done(): Promise<void> } | string> {
  const v = await valgrindVersion()
  if (typeof v !== 'string') return `not countable here: ${v.missing}`
  if (ctx.runtime.kind === 'native') return { ctx, done: async () => {} }
  if (ctx.runtime.generatorElsewhere || ctx.runtime.hostAddress)
    return 'not countable here: roles on several hosts (--hosts); count work on one host with --runtime native'
  const runtime = new NativeRuntime(`${ctx.runId}-work-${process.pid}`)
  return { ctx: { ...ctx, runtime }, done: () => runtime.stopAll() }
}

/** The cell as it runs under callgrind: its proxy wrapped, its config's one worker, its stack's `work` settings. */
function countedCell(cell: CellPlan): CellPlan {
  const work = cell.stack?.work
  return {
    ...cell,
    counted: {
      prefix: callgrindPrefix('.'),
      env: { ...CPU_PATH_ENV, ...(work?.env ?? {}) },
      threads: COUNTED_THREADS,
      edits: versionEdits(cell),
      readyTimeoutMs: 120_000,
    },
  }
}

/** The config edits a cell's proxy gets under callgrind (its stack's, for its version). */
const versionEdits = (cell: Pick<CellPlan, 'stack' | 'version'>): ConfigEdit[] => (cell.stack ? workEdits(cell.stack, cell.version) : [])

/** An edit as the setup line states it: the config lines it leaves, trimmed (`master_process off;`). */
const editedLines = (e: ConfigEdit): string => {
  const before = new Set(e.from.split('\n').map((l) => l.trim()))
  return `config ${e.to
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !before.has(l))
    .join(', ')}`
}

/** A work row of measurements.csv: instructions per keep-alive request. */
export async function measureRequestWork(cell: CellPlan, repeat: number, plan: WorkPlan, ctx: CellContext): Promise<Measurement> {
  const row = measurementRow(cell, repeat, ctx, { model: 'closed', targetRps: null, durationS: 0 })
  return countWork(cell, repeat, plan, ctx, row, 'request')
}

/** A work row of handshakes.csv: instructions per full handshake and its one GET. */
export async function measureHandshakeWork(cell: CellPlan, repeat: number, plan: WorkPlan, ctx: CellContext): Promise<Handshake> {
  return countWork(cell, repeat, plan, ctx, handshakeRow(cell, repeat, ctx), 'handshake')
}

type WorkFields = Partial<Measurement & Handshake>

async function countWork<T extends Measurement | Handshake>(
  cell: CellPlan,
  repeat: number,
  plan: WorkPlan,
  outer: CellContext,
  filled: RowFill<T>,
  unit: WorkUnit,
): Promise<T> {
  const row = (f: WorkFields) => filled(f as Partial<T>)
  const counting = await countingContext(outer)
  if (typeof counting === 'string') return row({ status: 'failed', reason: counting })
  try {
    return await countCell(cell, repeat, plan, counting.ctx, filled, unit)
  } catch (e) {
    // A cell that cannot be counted (Valgrind's control channel lost, the proxy gone) is its row's failure, never the run's.
    if (e instanceof UserError) throw e
    return row({ status: 'failed', reason: `counting failed: ${(e as Error).message.split('\n')[0]}` })
  } finally {
    await counting.done()
  }
}

async function countCell<T extends Measurement | Handshake>(
  cell: CellPlan,
  repeat: number,
  plan: WorkPlan,
  ctx: CellContext,
  filled: RowFill<T>,
  unit: WorkUnit,
): Promise<T> {
  const row = (f: WorkFields) => filled({ runtime: ctx.runtime.kind, ...f } as Partial<T>)
  const name = repeatStem(cell, repeat)
  return withVerifiedStack<T>(
    countedCell(cell),
    name,
    ctx,
    outcomes<T>((f) => row(f as WorkFields)),
    async (s) => {
      const pid = callgrindPid(s.proxy!.pid)
      if (pid === null) return row({ status: 'failed', reason: "not countable here: no process under callgrind in the proxy's process tree" })
      const counted = await countBatches(new Callgrind(pid, join(s.scratch, 'proxy')), unit, plan, s, ctx, name)
      writeRaw(rawFile(ctx.runDir, name, 'work.json'), counted)
      return row(await workFields(counted, cell))
    },
  )
}

/** Everything counted in a cell: the rounds, the idle stretches, the fit, and the first failure if any. */
export interface Counted {
  unit: WorkUnit
  rounds: Round[]
  idle: IdleStretch[]
  fit: WorkFit | null
  failure: string | null
  backendConns: number
  units: number
}

/** The batch runner of a unit: verified requests over one keep-alive connection, or full handshakes with one GET each. */
function batchRunner(unit: WorkUnit, s: RunningStack, ctx: CellContext, name: string) {
  const at = { name, scratch: s.scratch }
  return async (n: number): Promise<{ ok: number; issue: string | null }> => {
    if (unit === 'request') {
      const o = { url: s.url, n, c: 1, cacert: ctx.certs.ca, expectBody: 'hello world', cpus: ctx.cpus.generator }
      const r = await checkFromGenerator<RequestsResult>(ctx, at, requestsArgv(o), () => loadgenRequests(o))
      const issue = r.ok !== n ? `${r.ok}/${n} ok (${r.error_samples[0] ?? JSON.stringify(r.status)})` : r.proto !== 'HTTP/1.1' ? `protocol ${r.proto}` : null
      return { ok: r.ok, issue }
    }
    const argv = loadgenArgv('handshake', s.url, ctx.certs.ca, { n, c: 1, 'expect-body': 'hello world' })
    const r = await checkFromGenerator<HandshakeResult>(ctx, at, argv, () => runHere<HandshakeResult>(argv, ctx.cpus.generator))
    const issue =
      r.handshakes !== n || r.errors > 0 ? `${r.handshakes}/${n} handshakes, ${r.errors} errors` : r.resumed > 0 ? `${r.resumed} resumed, not full` : null
    return { ok: r.handshakes, issue }
  }
}

/** A loadgen subcommand on this machine, pinned to the generator's cores: its JSON summary. */
async function runHere<T>(argv: string[], cpus: string): Promise<T> {
  const r = await exec('taskset', ['-c', cpus, ...argv], { timeoutMs: 600_000 })
  const out = parseLoadgenOutput<T>(r.stdout)
  if (!out) throw new Error(`loadgen ${argv[1]} failed (exit ${r.code}): ${lastLine(r.stderr)}`)
  return out
}

/** GC cycles a Go proxy logged (GODEBUG=gctrace=1: one `gc N @…` line each) since `from` bytes of its log. */
function gcLinesSince(logFile: string, from: number): { cycles: number; size: number } {
  if (!existsSync(logFile)) return { cycles: 0, size: 0 }
  const buf = readFileSync(logFile)
  const text = buf.subarray(Math.min(from, buf.length)).toString('utf8')
  return { cycles: (text.match(/^gc \d+ @/gm) ?? []).length, size: buf.length }
}

/** Uncounted large batches before the first round. */
const WARMUP_BATCHES = 2

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * WARMUP_BATCHES uncounted large batches, then `plan.rounds` rounds of an idle stretch (as long as
 * a warm-up batch), a small and a large batch, each counted on its own. A batch that
 * fails its verification ends the count: the row is invalid, nothing of it is used.
 */
async function countBatches(cg: Callgrind, unit: WorkUnit, plan: WorkPlan, s: RunningStack, ctx: CellContext, name: string): Promise<Counted> {
  const run = batchRunner(unit, s, ctx, name)
  const logFile = join(s.scratch, 'proxy', 'proxy.log')
  const out: Counted = { unit, rounds: [], idle: [], fit: null, failure: null, backendConns: 0, units: 0 }
  // Two uncounted large batches: HAProxy's first counted round after one still ran 20-60% high (its pools and caches growing).
  let idleMs = 200
  for (let i = 0; i < WARMUP_BATCHES; i++) {
    const t0 = Date.now()
    const warm = await run(plan.large)
    if (warm.issue) return { ...out, failure: `verification failed under callgrind (warm-up): ${warm.issue}` }
    idleMs = Math.max(200, Date.now() - t0)
  }
  const batch = async (n: number): Promise<Batch | string> => {
    const log0 = gcLinesSince(logFile, 0).size
    let result: { ok: number; issue: string | null } = { ok: 0, issue: 'not run' }
    const start = performance.now()
    const instructions = await cg.count(async () => {
      result = await run(n)
    })
    const seconds = (performance.now() - start) / 1000
    if (result.issue) return result.issue
    return { units: n, instructions, seconds, gcCycles: gcLinesSince(logFile, log0).cycles }
  }
  const conns0 = (await backendStats(s.backend)).accepted
  for (let i = 0; i < plan.rounds; i++) {
    const start = performance.now()
    const idle = await cg.count(() => sleep(idleMs))
    out.idle.push({ instructions: idle, seconds: (performance.now() - start) / 1000 })
    const small = await batch(plan.small)
    const large = typeof small === 'string' ? small : await batch(plan.large)
    const issue = typeof small === 'string' ? small : typeof large === 'string' ? large : null
    if (issue) return { ...out, failure: `verification failed under callgrind: ${issue}` }
    out.rounds.push({ small: small as Batch, large: large as Batch })
    out.units += plan.small + plan.large
  }
  out.backendConns = (await backendStats(s.backend)).accepted - conns0
  out.fit = fitWork(out.rounds, out.idle)
  return out
}

const round = (x: number, d = 1) => Number(x.toFixed(d))

/** The row's columns from what was counted. */
async function workFields(c: Counted, cell: CellPlan): Promise<WorkFields> {
  const valgrind = await valgrindVersion()
  const seconds = c.rounds.reduce((a, r) => a + r.small.seconds + r.large.seconds, 0)
  const base: WorkFields = {
    counted_batches: c.rounds.length * 2,
    duration_s: round(seconds, 3),
    connections: 1,
    work_setup: workSetup(typeof valgrind === 'string' ? valgrind : 'valgrind ?', cell, c.fit),
  }
  const units = c.unit === 'request' ? { requests: c.units } : { handshakes: c.units }
  if (c.failure || !c.fit) return { ...base, ...units, status: 'invalid', reason: c.failure ?? 'nothing counted' }
  return {
    ...base,
    ...units,
    instructions_per_req: round(c.fit.perUnit),
    instructions_per_req_low: Number.isFinite(c.fit.low) ? round(c.fit.low) : null,
    instructions_per_req_high: Number.isFinite(c.fit.high) ? round(c.fit.high) : null,
    ...(c.unit === 'request' ? { backend_conns_per_1k_req: round((c.backendConns / c.units) * 1000, 2) } : {}),
  }
}

/** How the row was counted, in one line: tool, the worker deviation, the environment that fixes code paths, the corrections. */
export function workSetup(valgrind: string, cell: Pick<CellPlan, 'stack' | 'version'>, fit: WorkFit | null): string {
  const env = cell.stack?.work?.env ?? {}
  const parts = [
    `${valgrind} callgrind`,
    `${COUNTED_THREADS} worker`,
    ...versionEdits(cell).map(editedLines),
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    cpuFeatures(),
    ...(fit ? [`idle ${(fit.idleShare * 100).toFixed(2)}% taken off`] : []),
    ...(fit && fit.gcPerUnit > 0
      ? [
          `GC ${fit.gcPerUnit.toFixed(4)} cycles/unit${fit.perGcCycle ? ` at ${(fit.perGcCycle / 1e6).toFixed(1)}M instructions each` : ' (not separable: in the slope)'}`,
        ]
      : []),
  ]
  return parts.join('; ')
}

/** The batches behind a row (raw/<stem>.work.json): what recomputes its figure. */
function writeRaw(file: string, c: Counted): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileAtomic(file, `${JSON.stringify(c, null, 1)}\n`)
}
