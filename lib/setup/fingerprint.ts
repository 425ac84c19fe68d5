import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { release } from 'node:os'
import { gunzipSync } from 'node:zlib'
import { exec } from '../core/exec.ts'
import type { Fingerprint } from '../data/schema.ts'

/** Where the facts live; tests point these at fixed samples. */
export interface FingerprintSources {
  cpuinfo: string
  procVersion: string
  vulnerabilitiesDir: string
  clocksourceFile: string
  dmiProductFile: string
}

export const LINUX_SOURCES: FingerprintSources = {
  cpuinfo: '/proc/cpuinfo',
  procVersion: '/proc/version',
  vulnerabilitiesDir: '/sys/devices/system/cpu/vulnerabilities',
  clocksourceFile: '/sys/devices/system/clocksource/clocksource0/current_clocksource',
  dmiProductFile: '/sys/class/dmi/id/product_name',
}

const UNKNOWN = 'unknown'
const readText = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

export interface CpuFacts {
  cpu_model: string
  cpu_family: string
  cpu_model_number: string
  stepping: string
  microcode: string
  hypervisor: boolean
}

/** The first processor's entry of /proc/cpuinfo (all cores of one machine share them). */
export function parseCpuinfo(text: string): CpuFacts {
  const first = text.split(/\n\s*\n/)[0] ?? ''
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(first)?.[1]?.trim() || UNKNOWN
  return {
    cpu_model: field('model name'),
    cpu_family: field('cpu family'),
    cpu_model_number: field('model'),
    stepping: field('stepping'),
    microcode: field('microcode'),
    hypervisor: /^flags\s*:.*\bhypervisor\b/m.test(first),
  }
}

/** name → its one line, for every file of the vulnerabilities directory (empty when there is none). */
export function readVulnerabilities(dir: string): Record<string, string> {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return {}
  }
  return Object.fromEntries(names.map((n) => [n, (readText(join(dir, n)) ?? UNKNOWN).trim()]))
}

/** The same from `grep -H . DIR/*` output (read in a container on another host): `path:line` per file. */
export function readVulnerabilitiesText(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^(?:.*\/)?vulnerabilities\/([^/:]+):(.*)$/.exec(line)
    if (m) out[m[1]!] = m[2]!.trim()
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
}

/**
 * systemd-detect-virt's answer where it is installed ("none" on bare metal); else the
 * cpuinfo hypervisor flag, with the DMI product name when there is one.
 */
export function virtualization(detectVirt: { code: number; stdout: string } | null, cpu: CpuFacts, dmiProduct: string | null): string {
  const answer = detectVirt?.stdout.trim()
  if (detectVirt && detectVirt.code !== 127 && answer) return answer
  const dmi = dmiProduct?.trim()
  if (cpu.hypervisor) return `hypervisor (cpuinfo flag${dmi ? `, ${dmi}` : ''})`
  return dmi ? `none detected (${dmi})` : 'none detected'
}

/**
 * How the kernel splits interrupt time. With CONFIG_IRQ_TIME_ACCOUNTING it times irq and
 * softirq apart: /proc/stat shows them in their own columns and a cgroup's counter never
 * includes them (`separate`). Without it (this machine's 6.18 kernel) the softirq that runs
 * on a task's time, the proxy's own loopback packets, is charged to that task's cgroup
 * while /proc/stat counts the ticks that landed in it as softirq (`charged`): there the
 * roles' counters exceed their user+system ticks (quiet windows here: by 6-40% of a core).
 */
export type IrqAccounting = 'separate' | 'charged'

/** The kernel's IRQ time accounting from its config text; null when the text does not say. */
export function irqAccountingFromConfig(config: string): IrqAccounting | null {
  if (/^CONFIG_IRQ_TIME_ACCOUNTING=y$/m.test(config)) return 'separate'
  if (/^# CONFIG_IRQ_TIME_ACCOUNTING is not set$/m.test(config) || /^CONFIG_\w+=/m.test(config)) return 'charged'
  return null
}

let kernelIrq: IrqAccounting | null | undefined
/** This kernel's IRQ time accounting (/proc/config.gz, else /boot/config-RELEASE); null: neither readable. */
export function kernelIrqAccounting(): IrqAccounting | null {
  if (kernelIrq !== undefined) return kernelIrq
  let config: string | null
  try {
    config = gunzipSync(readFileSync('/proc/config.gz')).toString('utf8')
  } catch {
    config = readText(`/boot/config-${release()}`)
  }
  kernelIrq = config === null ? null : irqAccountingFromConfig(config)
  return kernelIrq
}

/** This machine's fingerprint; every fact that cannot be read is "unknown", never an error. */
export async function machineFingerprint(src: FingerprintSources = LINUX_SOURCES): Promise<Fingerprint> {
  const cpu = parseCpuinfo(readText(src.cpuinfo) ?? '')
  const uname = await exec('uname', ['-r'])
  // exits 1 with "none" on bare metal: the answer is in stdout either way
  const virt = await exec('systemd-detect-virt', [])
  const { hypervisor: _, ...facts } = cpu
  return {
    ...facts,
    kernel_release: (uname.code === 0 && uname.stdout.trim()) || release(),
    kernel_version: readText(src.procVersion)?.trim() || UNKNOWN,
    vulnerabilities: readVulnerabilities(src.vulnerabilitiesDir),
    clocksource: readText(src.clocksourceFile)?.trim() || UNKNOWN,
    virtualization: virtualization(virt, cpu, readText(src.dmiProductFile)),
    irq_time_accounting: kernelIrqAccounting() ?? UNKNOWN,
  }
}
