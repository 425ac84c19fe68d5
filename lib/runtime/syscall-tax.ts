import { exec, lastLine } from '../core/exec.ts'
import type { SyscallTax } from '../data/schema.ts'
import { goBinaryPath } from '../setup/gobuild.ts'

/*
 * The system-call tax (docs/benchmarks.md#the-system-call-tax): stacks/syscall-tax installs a
 * seccomp-BPF filter of N instructions and execs the role, so every system call of it,
 * its threads and children pays for the filter. The filter reads an argument first: the
 * kernel cannot cache its verdict per system call. N is chosen by measuring, on the
 * proxy's cores, what a probe length costs per system call; the tax reached is then
 * measured again and recorded (manifest.syscall_tax), never assumed.
 */

/** The longest filter path the kernel accepts per system call (the launcher's -insns limit). */
export const MAX_TAX_INSNS = 32_000
/** Probe length: long enough that its cost stands well above the timing noise of a busy core. */
const PROBE_INSNS = 4_000

/** The launcher's -measure line. */
export interface TaxReading {
  insns: number
  base_ns_per_syscall: number
  taxed_ns_per_syscall: number
  tax_ns_per_syscall: number
}

export function parseTaxReading(stdout: string): TaxReading {
  const j = JSON.parse(stdout.trim().split('\n').at(-1) || '{}') as Partial<TaxReading>
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
  if (!ok(j.insns) || !ok(j.base_ns_per_syscall) || !ok(j.taxed_ns_per_syscall) || !ok(j.tax_ns_per_syscall))
    throw new Error(`syscall-tax -measure: unexpected output ${stdout.trim().slice(0, 200)}`)
  return { insns: j.insns, base_ns_per_syscall: j.base_ns_per_syscall, taxed_ns_per_syscall: j.taxed_ns_per_syscall, tax_ns_per_syscall: j.tax_ns_per_syscall }
}

/** What one system call costs more under a filter of `insns` instructions, on `cpus`. */
export async function measureTax(insns: number, cpus: string, binary = goBinaryPath('syscall-tax')): Promise<TaxReading> {
  const r = await exec('taskset', ['-c', cpus, binary, '-measure', '-insns', String(insns)], { timeoutMs: 120_000 })
  if (r.code !== 0) throw new Error(`syscall-tax -measure exited ${r.code}: ${lastLine(r.stderr)}`)
  return parseTaxReading(r.stdout)
}

/** The filter length whose measured per-instruction cost gives `targetNs`, within the kernel's limit. */
export function insnsFor(targetNs: number, probe: TaxReading): number {
  const perInsn = probe.tax_ns_per_syscall / probe.insns
  if (!(perInsn > 0)) throw new Error(`syscall-tax: a filter of ${probe.insns} instructions measured no cost (${probe.tax_ns_per_syscall} ns per system call)`)
  return Math.max(1, Math.min(MAX_TAX_INSNS, Math.round(targetNs / perInsn)))
}

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * Chooses the filter length for a tax of `targetNs` per system call on `cpus` and measures
 * what it reaches (median of three readings). A tax beyond the kernel's limit is capped
 * and says so in `note`.
 */
export async function calibrateTax(targetNs: number, cpus: string, binary = goBinaryPath('syscall-tax')): Promise<SyscallTax> {
  const probes = [await measureTax(PROBE_INSNS, cpus, binary), await measureTax(PROBE_INSNS, cpus, binary), await measureTax(PROBE_INSNS, cpus, binary)]
  const probe = probes.find((p) => p.tax_ns_per_syscall === medianOf(probes.map((x) => x.tax_ns_per_syscall)))!
  const insns = insnsFor(targetNs, probe)
  const reached = [await measureTax(insns, cpus, binary), await measureTax(insns, cpus, binary), await measureTax(insns, cpus, binary)]
  const measured = medianOf(reached.map((r) => r.tax_ns_per_syscall))
  return {
    target_ns: targetNs,
    insns,
    measured_ns: measured,
    base_ns: medianOf(reached.map((r) => r.base_ns_per_syscall)),
    cpuset: cpus,
    measured_at: new Date().toISOString(),
    note: insns === MAX_TAX_INSNS && measured < targetNs * 0.9 ? `capped at the kernel's ${MAX_TAX_INSNS} filter instructions per system call` : '',
  }
}

/** The argv prefix that runs a program under the tax (the launcher execs it in its place). */
export const taxLauncher = (tax: Pick<SyscallTax, 'insns'>, binary = goBinaryPath('syscall-tax')): string[] => [binary, '-insns', String(tax.insns), '--']

export const formatTax = (t: SyscallTax) =>
  `syscall tax: ${t.insns} filter instructions, measured +${t.measured_ns.toFixed(0)} ns per system call (asked ${t.target_ns} ns; untaxed ${t.base_ns.toFixed(0)} ns) on cpuset ${t.cpuset}${t.note ? `; ${t.note}` : ''}`
