import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { nextBackendHost, startBackend, type Backend } from '../roles/backend.ts'
import type { Profile } from '../catalog/profiles.ts'
import { loadStack, newestVersion, templateFile, variantScheme, versionKey, type ProxyName, type Stack, type StackVersion } from '../catalog/stack.ts'
import { pinnedVersion, type PinnedVersions } from '../catalog/version-choice.ts'
import type { CellVariant } from '../catalog/variants.ts'
import { configCopy } from '../data/raw-files.ts'
import type { CertSet, KeyType } from '../setup/certs.ts'
import { cpuCount, type CpuLayout } from '../roles/cpus.ts'
import { loadgenOn, loadgenRequests, requestsArgv, type RequestsResult } from '../roles/loadgen.ts'
import { prepareProxy, startProxy, type CountedRun, type ProxyBuild } from '../roles/proxy.ts'
import { listenHost, LOOPBACK, reachHost } from '../runtime/network.ts'
import { interrupted } from '../runtime/shutdown.ts'
import type { RunningRole, Runtime } from '../runtime/types.ts'
import type { ReadyOptions } from '../roles/net.ts'

/** The plan of one cell of a series: what is measured, independent of the repeat (a cell is identified by CELL_COLUMNS, lib/data/grouping.ts). */
export interface CellPlan {
  series: string
  /** A proxy of the catalog, or `direct` (generator straight to the backend: the floor). */
  proxy: string
  version: string
  variant: CellVariant
  keyType: KeyType
  connections: number
  /** What the client speaks to the proxy (the variant's scheme); the direct row is always http. Default https. */
  scheme?: 'http' | 'https'
  /** The request path: / (hello world, the default) or /json with `bodyBytes` (the backend's generated body). */
  path?: string
  bodyBytes?: number
  /** Why the cell cannot run on this machine (e.g. more connections than its limits allow): a failed row, nothing started. */
  unrunnable?: string
  /** h2 cells (lib/measure/h2.ts): streams per connection, h2load -m. */
  streams?: number
  /** h3 cells (lib/measure/h3.ts): HTTP/3 over QUIC from the client; the direct row's backend also serves it. */
  protocol?: 'h3'
  /** Handshake cells: what the client offers to resume with (loadgen handshake -resume; over QUIC, loadgen h3-handshake -resume, 0rtt too). */
  resumption?: 'none' | 'tickets' | 'tickets-tls12' | '0rtt'
  /** For proxies: the stack, catalog entry and template to render. */
  stack?: Stack
  stackVersion?: StackVersion
  template?: string
  /** A registry image of this version (bisect --tags-from): run on the docker runtime, no host binary (lib/roles/proxy.ts). */
  image?: string
  /** A then cell (--like): the baseline's build of the proxy instead of the catalog's (lib/setup/then-builds.ts). */
  build?: ProxyBuild
  /** A work cell (lib/measure/work.ts): the proxy runs under a counting tool, with one worker. */
  counted?: CountedRun
}

export interface CellContext {
  runtime: Runtime
  /**
   * Each (proxy, version, variant, template) checked once per run (checkTemplates):
   * null accepted, a string the checker's reason. Absent: every cell runs the checker.
   */
  templateChecks?: Map<string, string | null>
  runId: string
  /** results/<run-id>: raw/ and configs/ go below it. */
  runDir: string
  cpus: CpuLayout
  profile: Profile
  certs: CertSet
  /** Kernel counts of the proxy per window (lib/runtime/counts.ts); false: switched off (--no-counts), the columns say so. Default on. */
  counts?: boolean
  /** Called with the stack up, just before the load starts (lib/run/quiet.ts): waits for quiet after a disturbed window. */
  windowGate?: WindowGate
  /** Catalog versions gone from their source (`proxy version` → why, lib/setup/builds.ts): their cells are failed rows, nothing started. */
  notRunnable?: ReadonlyMap<string, string>
}

/** What a cell protocol awaits before it starts its load, so that a window fits between a neighbour's bursts. */
export interface WindowGate {
  /** `roles`: the stack's running roles, whose CPU is the bench's own. */
  beforeWindow(roles?: readonly RunningRole[]): Promise<void>
}

/**
 * A cell of a proxy's catalog: one version (default the newest), one variant (its
 * template unless a user config is given), one key type and connection count.
 */
export function catalogCellPlan(
  proxy: ProxyName | Stack,
  o: { series: string; variant: CellVariant; keyType?: KeyType; connections: number; version?: StackVersion; template?: string; pinned?: PinnedVersions },
): CellPlan {
  const stack = typeof proxy === 'string' ? loadStack(proxy) : proxy
  // A one-version series runs the pinned version (--pin-versions, --like), else the newest.
  const v = o.version ?? pinnedVersion(stack, o.pinned) ?? newestVersion(stack)
  return {
    series: o.series,
    proxy: stack.proxy,
    version: v.version,
    variant: o.variant,
    keyType: o.keyType ?? 'ec256',
    connections: o.connections,
    stack,
    stackVersion: v,
    template: o.template ?? templateFile(stack, o.variant),
    scheme: variantScheme(stack, o.variant),
  }
}

/** What the client speaks: a proxy cell its variant's scheme, the direct row plain HTTP (the backend has no TLS). */
export const cellScheme = (c: CellPlan): 'http' | 'https' => c.scheme ?? (c.proxy === 'direct' ? 'http' : 'https')

/** The request target: / (hello world) or /json?size=N (a body of N bytes generated per request). */
export const requestTarget = (c: CellPlan): string => (c.bodyBytes ? `${c.path ?? '/json'}?size=${c.bodyBytes}` : (c.path ?? '/'))

/**
 * Access-log variants (stack.yaml `access_log`): after the window the log file in the
 * proxy's run_dir must hold at least the verification's requests, one line each, or the
 * row would price a config that did not log. Null when fine or not a logging variant.
 */
export function accessLogIssue(cell: CellPlan, proxyRunDir: string, atLeast = VERIFY_REQUESTS): string | null {
  const name = cell.stack?.variants[cell.variant]?.access_log
  if (!name) return null
  const file = join(proxyRunDir, name)
  if (!existsSync(file)) return `access log ${name} was never written in the proxy's run_dir`
  const buf = readFileSync(file)
  let lines = 0
  for (const b of buf) if (b === 0x0a) lines++
  return lines >= atLeast ? null : `access log ${name} has ${lines} lines after ${atLeast} verified requests and the window`
}

/** The generator straight to the backend: the floor every proxy is compared with. */
export const directCell = (backendVersion: string, connections: number): CellPlan => ({
  series: 'direct',
  proxy: 'direct',
  version: backendVersion,
  variant: 'direct',
  keyType: 'ec256',
  connections,
  scheme: 'http',
})

const templateKey = (c: CellPlan) => `${c.proxy} ${c.version} ${c.variant} ${c.keyType} ${c.template}${c.build ? ` ${c.build.binary}` : ''}`

/**
 * Renders and checks (the proxy's own checker) every template of `cells` not yet checked
 * in this run, once per (proxy, version, variant, key type: the certificate is part of what it checks), before the first cell: a broken one is
 * reported now with the checker's first error lines, and its cells become failed rows
 * without starting anything. Returns the reasons of the newly rejected ones.
 */
export async function checkTemplates(cells: readonly CellPlan[], ctx: CellContext & { templateChecks: Map<string, string | null> }): Promise<string[]> {
  const rejected: string[] = []
  for (const c of cells) {
    if (!c.stack || !c.stackVersion || !c.template || ctx.templateChecks.has(templateKey(c))) continue
    // An image's binary is not on the host: starting the cell is its check (a rejected config is a failed row).
    if (c.image) continue
    // A version gone from its source has nothing to check: its cells are not-runnable rows.
    if (!c.build && ctx.notRunnable?.has(versionKey(c.proxy, c.version))) continue
    const scratch = mkdtempSync(join(tmpdir(), 'proxybench-check-'))
    try {
      // No backend runs: the checker only parses, an address is all it needs.
      await prepareProxy({
        stack: c.stack,
        version: c.stackVersion,
        variant: c.variant,
        template: c.template,
        certs: ctx.certs.files[c.keyType],
        // Checked here, on this machine: a proxy host's address is not one of its own (nginx -t binds), so loopback stands in.
        backend: { host: LOOPBACK, port: 9 },
        listenHost: listenHost(ctx.runtime),
        threads: cpuCount(ctx.cpus.proxy),
        runDir: scratch,
        // A rejected config is copied under the run's configs/ and the reason names that copy.
        keepCopy: configCopy(ctx.runDir, c, c.stack.config_ext),
        ...(c.build ? { build: c.build } : {}),
      })
      ctx.templateChecks.set(templateKey(c), null)
    } catch (e) {
      const reason = `config rejected before the run: ${(e as Error).message.split('\n')[0]}`
      ctx.templateChecks.set(templateKey(c), reason)
      rejected.push(reason)
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  }
  return rejected
}

const VERIFY_REQUESTS = 20

/**
 * A loadgen check run where the generator runs: on this machine (`here`), or as a role on
 * the generator's host when roles run on several hosts, so the path checked is the path measured.
 */
export function checkFromGenerator<T>(ctx: CellContext, at: { name: string; scratch: string } | undefined, argv: string[], here: () => Promise<T>): Promise<T> {
  if (!at || !ctx.runtime.generatorElsewhere) return here()
  return loadgenOn<T>(ctx.runtime, argv, { name: `verify-${at.name}`, logDir: at.scratch, cpus: ctx.cpus.generator })
}

/** 20 requests through the stack (hello world, or a body of the cell's size); a problem is a one-line reason, never an exception. */
async function verify(url: string, cell: CellPlan, ctx: CellContext, at: { name: string; scratch: string }): Promise<string | null> {
  try {
    const body = cell.bodyBytes ? { expectBytes: cell.bodyBytes } : { expectBody: 'hello world' }
    const o = { url, n: VERIFY_REQUESTS, c: 2, cacert: ctx.certs.ca, ...body, cpus: ctx.cpus.generator }
    const check = await checkFromGenerator<RequestsResult>(ctx, at, requestsArgv(o), () => loadgenRequests(o))
    if (check.ok !== check.requests) return `${check.ok}/${check.requests} ok (${check.error_samples[0] ?? JSON.stringify(check.status)})`
    if (check.proto !== 'HTTP/1.1') return `protocol ${check.proto}, expected HTTP/1.1`
    return null
  } catch (e) {
    return (e as Error).message.split('\n')[0]!
  }
}

/**
 * An L4 cell's stack (lib/measure/tcp.ts) in place of HTTPS: the backend also runs its
 * echo listeners, the proxy forwards to the one `backendPort` picks, is ready when a
 * message comes back through it, and the verification is its own.
 */
export interface L4Stack {
  /** Start the backend's echo listeners (default true; false: a cell that only needs the proxy's TLS listener, lib/measure/default-key.ts). */
  echo?: boolean
  backendPort(b: Backend): number
  ready(port: number, o: ReadyOptions): Promise<void>
  url(host: string, port: number): string
  verify(s: RunningStack): Promise<string | null>
}

export interface RunningStack {
  backend: Backend
  /** Absent for the direct row. */
  proxy?: RunningRole
  url: string
  /** Everything started for this cell; roles added here are stopped with the stack. */
  roles: RunningRole[]
  scratch: string
}

/** Prepares and starts the cell's proxy in front of the backend, keeps a copy of its config, and points the stack's URL at it. */
async function startCellProxy(cell: CellPlan, ctx: CellContext, stack: RunningStack, checked: boolean, l4?: L4Stack): Promise<void> {
  if (!(cell.stack && cell.stackVersion && cell.template)) return
  const { backend, scratch } = stack
  const prepared = await prepareProxy({
    stack: cell.stack,
    version: cell.stackVersion,
    variant: cell.variant,
    template: cell.template,
    certs: ctx.certs.files[cell.keyType],
    backend: l4 ? { host: backend.host, port: l4.backendPort(backend) } : backend,
    listenHost: listenHost(ctx.runtime, LOOPBACK, 'proxy'),
    threads: cell.counted?.threads ?? cpuCount(ctx.cpus.proxy),
    runDir: join(scratch, 'proxy'),
    keepCopy: configCopy(ctx.runDir, cell, cell.stack.config_ext),
    checked,
    ...(cell.counted ? { counted: cell.counted } : {}),
    ...(cell.image ? { image: cell.image } : {}),
    ...(cell.build ? { build: cell.build } : {}),
  })
  const saved = configCopy(ctx.runDir, cell, cell.stack.config_ext)
  mkdirSync(dirname(saved), { recursive: true })
  if (!existsSync(saved)) copyFileSync(prepared.configFile, saved)
  stack.proxy = await startProxy(ctx.runtime, prepared, ctx.cpus.proxy, ctx.certs.ca, l4?.ready)
  stack.roles.push(stack.proxy)
  stack.url = `${cellScheme(cell)}://${reachHost(ctx.runtime, stack.proxy)}:${prepared.listenPort}${requestTarget(cell)}`
  if (l4) stack.url = l4.url(reachHost(ctx.runtime, stack.proxy), prepared.listenPort)
}

/**
 * Starts backend and proxy for a cell, verifies them, runs `body`, and stops everything
 * whatever happens. A start failure or a failed verification becomes a row through
 * `outcome`, never an exception: one bad cell must not end the run.
 */
export async function withVerifiedStack<T>(
  cell: CellPlan,
  name: string,
  ctx: CellContext,
  outcome: { failed(reason: string): T; invalid(reason: string): T },
  body: (s: RunningStack) => Promise<T>,
  l4?: L4Stack,
): Promise<T> {
  const checked = cell.template ? ctx.templateChecks?.get(templateKey(cell)) : undefined
  const unrunnable = unrunnableReason(cell, ctx, checked)
  if (unrunnable !== null) return outcome.failed(unrunnable)
  const scratch = mkdtempSync(join(tmpdir(), 'proxybench-cell-'))
  const roles: RunningRole[] = []
  try {
    let stack: RunningStack
    try {
      stack = await startStack(cell, name, ctx, { scratch, roles, checked: checked === null }, l4)
    } catch (e) {
      return outcome.failed(`did not start: ${(e as Error).message.split('\n')[0]}`)
    }
    const verification = l4 ? await l4.verify(stack) : await verify(stack.url, cell, ctx, { name, scratch })
    if (verification) return outcome.invalid(`verification failed: ${verification}`)
    try {
      const result = await body(stack)
      return await withAccessLogIssue(result, cell, ctx, stack)
    } catch (e) {
      return await measurementFailure(e, roles, outcome)
    }
  } finally {
    // Together, as stopAll does: the window is over (quick's closed repeats: 3.66 s apart, 3.69 s one at a time).
    await Promise.all(roles.map((r) => ctx.runtime.stop(r)))
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Why the cell cannot run at all (its template failed its check, the plan says so, its version is not runnable here), or null. */
function unrunnableReason(cell: CellPlan, ctx: CellContext, checked: string | null | undefined): string | null {
  if (typeof checked === 'string') return checked
  if (cell.unrunnable) return cell.unrunnable
  // A then twin's own build runs even when the catalog's pin of its version is gone.
  const gone = cell.build ? undefined : ctx.notRunnable?.get(versionKey(cell.proxy, cell.version))
  return gone ? gone : null
}

/** Starts the cell's backend, then its proxy (none for the direct row); every role started is in `at.roles`, to be stopped. */
async function startStack(
  cell: CellPlan,
  name: string,
  ctx: CellContext,
  at: { scratch: string; roles: RunningRole[]; checked: boolean },
  l4?: L4Stack,
): Promise<RunningStack> {
  const backend = await startBackend(ctx.runtime, {
    cpus: ctx.cpus.backend,
    logDir: at.scratch,
    name: `backend-${name}`,
    host: nextBackendHost(),
    ...(l4 && l4.echo !== false ? { echo: ctx.certs.files[cell.keyType] } : {}),
    ...(cell.protocol === 'h3' && !cell.stack ? { h3: ctx.certs.files[cell.keyType] } : {}),
  })
  at.roles.push(backend.role)
  const stack: RunningStack = { backend, url: `http://${backend.host}:${backend.port}${requestTarget(cell)}`, roles: at.roles, scratch: at.scratch }
  await startCellProxy(cell, ctx, stack, at.checked, l4)
  return stack
}

/** The body's result, made invalid with why when the proxy's access log shows a problem (its measured figures stay in the row). */
async function withAccessLogIssue<T>(result: T, cell: CellPlan, ctx: CellContext, stack: RunningStack): Promise<T> {
  // The proxy's access log is in its container when no file system is shared.
  if (stack.proxy && cell.stack?.variants[cell.variant]?.access_log) await ctx.runtime.collect?.(stack.proxy)
  const logIssue = accessLogIssue(cell, join(stack.scratch, 'proxy'))
  if (!(logIssue && result && typeof result === 'object' && 'status' in result)) return result
  const r = result as T & { status: string; reason: string }
  return { ...r, status: 'invalid', reason: [r.reason, logIssue].filter(Boolean).join('; ') }
}

/**
 * A failure inside the body: a role that died mid-window (killed, crashed, its engine
 * restarted) makes reads of it fail, which is a row that says so, not the end of the run;
 * so is an error of the system or the engine. Anything else (and any error after a signal) is thrown.
 */
async function measurementFailure<T>(
  e: unknown,
  roles: readonly RunningRole[],
  outcome: { failed(reason: string): T; invalid(reason: string): T },
): Promise<T> {
  if (interrupted()) throw e
  await Promise.race([Promise.any(roles.map((r) => r.exited)), new Promise((r) => setTimeout(r, 1000).unref())])
  const died = roles.find((r) => r.exit)
  const firstLine = () => (e as Error).message.split('\n')[0]
  if (died) return outcome.invalid(`${died.spec.role} exited during the run (code ${died.exit!.code ?? died.exit!.signal}); ${firstLine()}`)
  if (typeof (e as NodeJS.ErrnoException).code === 'string' || /timed out|socket hang up|ECONN|EPIPE|docker|engine/i.test((e as Error).message))
    return outcome.failed(`measurement failed: ${firstLine()}`)
  throw e
}
