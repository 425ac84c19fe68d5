import { userError } from '../core/errors.ts'
import { certsDir } from '../core/paths.ts'
import type { Manifest, SyscallTax } from '../data/schema.ts'
import { calibrateTax, formatTax, taxLauncher } from '../runtime/syscall-tax.ts'
import { ensureCerts, type CertSet } from '../setup/certs.ts'
import { usable, type ComponentRow } from '../setup/component.ts'
import { setup } from '../setup/doctor.ts'
import { archiveMeasured } from '../setup/build-archive.ts'
import { versionKey } from '../catalog/stack.ts'
import { readRunTables } from '../data/run-data.ts'
import type { RunRecord } from './manifest.ts'
import type { RunOptions } from './options.ts'
import type { OpenedRun } from './resume.ts'

/** What the roles run from: the components found, the certificates, and the system-call tax's launcher (empty: none). */
export interface RunComponents {
  components: ComponentRow[]
  certs: CertSet
  syscallTax?: SyscallTax
  launcher: readonly string[]
}

/**
 * --tax-ns: the filter length for the asked tax, measured on the proxy's cores now, or the
 * run's own on --resume (the same length, so every row pays the same); a resume that asks
 * for another tax, or none where the run had one, is refused.
 */
async function runSyscallTax(o: RunOptions, previous: Manifest | undefined, cpuset: string): Promise<SyscallTax | undefined> {
  const had = previous?.syscall_tax
  if (o.resume && previous && (had?.target_ns ?? null) !== (o.syscallTaxNs ?? null)) {
    throw userError(
      '--tax-ns',
      `${o.out} ran ${had ? `under a tax of ${had.target_ns} ns per system call` : 'without a system-call tax'}`,
      had ? `Resume with --tax-ns ${had.target_ns}` : 'Resume without --tax-ns',
    )
  }
  if (had) {
    o.log.info(formatTax(had))
    return had
  }
  if (o.syscallTaxNs === undefined) return undefined
  o.log.progress(`syscall tax: measuring the filter length for ${o.syscallTaxNs} ns per system call on cpuset ${cpuset}…`)
  const tax = await calibrateTax(o.syscallTaxNs, cpuset).catch((e: Error) => {
    throw userError('--tax-ns', e.message, 'Run: npx zx notebooks/00-setup.mjs (it builds stacks/syscall-tax), or drop --tax-ns')
  })
  o.log.info(formatTax(tax))
  return tax
}

/** Stage 2 of a run: components (installed by run-all, only checked by a single step), certificates, the tax. */
export async function prepareComponents(o: RunOptions, run: OpenedRun): Promise<RunComponents> {
  const components = await setup({ proxies: o.proxies, install: o.install, strict: o.strictBuilds, log: o.log, engine: false })
  const needed = ['backend', 'loadgen', 'wrk', 'openssl', ...(o.syscallTaxNs ? ['syscall-tax'] : []), ...o.proxies]
  // A version gone from its source is left out, its cells say why; anything else missing stops the run.
  const broken = components.filter((c) => !usable(c) && c.status !== 'not runnable' && needed.includes(c.component))
  if (broken.length > 0) throw userError(broken[0]!.component, broken[0]!.note ?? 'missing', 'Run: npx zx notebooks/00-setup.mjs')
  for (const c of components) if (c.status === 'substituted' || c.status === 'restored' || c.status === 'not runnable') o.log.warn(c.note ?? c.status)
  const certs = await ensureCerts(certsDir, { force: false, log: o.log })
  const syscallTax = await runSyscallTax(o, run.previous, run.cpus.proxy)
  return { components, certs, ...(syscallTax ? { syscallTax } : {}), launcher: syscallTax ? taxLauncher(syscallTax) : [] }
}

/**
 * After the series: every proxy build this run measured (a row of any of its tables) is kept
 * in the archive (docs/archive.md) and the manifest names each by its tree. A build that
 * cannot be kept is a warning: the measurements stand.
 */
export async function archiveRunBuilds(o: RunOptions, record: RunRecord, parts: RunComponents, runDir: string): Promise<void> {
  const tables = readRunTables(runDir)
  const rows = [...tables.measurements, ...tables.handshakes, ...tables.websocket, ...(tables.tcp ?? [])] as { proxy: string; version: string }[]
  // The direct row is the backend's: not a proxy build.
  const measured = new Set(rows.filter((r) => r.proxy !== 'direct').map((r) => versionKey(r.proxy, r.version)))
  o.log.progress(`archive: keeping the ${measured.size} proxy builds this run measured (docs/archive.md)`)
  const trees = await archiveMeasured(parts.components, measured, o.log)
  for (const c of record.manifest.components) {
    const tree = trees.get(versionKey(c.component, c.version))
    if (tree) c.archive = tree
  }
  record.save()
}
