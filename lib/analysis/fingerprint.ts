import type { Fingerprint } from '../data/schema.ts'

const LABELS: [keyof Omit<Fingerprint, 'vulnerabilities' | 'kernel_version' | 'irq_time_accounting'>, string][] = [
  ['cpu_model', 'CPU model'],
  ['cpu_family', 'CPU family'],
  ['cpu_model_number', 'CPU model number'],
  ['stepping', 'stepping'],
  ['microcode', 'microcode'],
  ['kernel_release', 'kernel'],
  ['clocksource', 'clock source'],
  ['virtualization', 'virtualisation'],
]

const show = (v: string | undefined) => (v === undefined ? '(absent)' : /\s/.test(v) || v === '' ? `'${v}'` : v)

/**
 * The differences between two fingerprints in words, one entry per fact:
 * "kernel 6.1.0-18 → 6.1.0-25", "vulnerabilities/spectre_v2: 'Mitigation: Retpolines' → 'Mitigation: IBRS'".
 * Empty when the machines look alike.
 */
export function fingerprintDiff(a: Fingerprint, b: Fingerprint): string[] {
  const out: string[] = []
  for (const [k, label] of LABELS) if (a[k] !== b[k]) out.push(`${label} ${show(a[k])} → ${show(b[k])}`)
  // Recorded since foreign CPU depends on it; a manifest written before has none, which is no difference.
  if (a.irq_time_accounting && b.irq_time_accounting && a.irq_time_accounting !== b.irq_time_accounting)
    out.push(`IRQ time accounting ${a.irq_time_accounting} → ${b.irq_time_accounting}`)
  // /proc/version names the release too: only a difference beyond it (compiler, build) is news.
  const build = (f: Fingerprint) => f.kernel_version.split(f.kernel_release).join('<release>')
  if (build(a) !== build(b)) out.push(`/proc/version ${show(a.kernel_version)} → ${show(b.kernel_version)}`)
  const names = [...new Set([...Object.keys(a.vulnerabilities), ...Object.keys(b.vulnerabilities)])].sort()
  for (const n of names) {
    const x = a.vulnerabilities[n]
    const y = b.vulnerabilities[n]
    if (x !== y) out.push(`vulnerabilities/${n}: ${show(x)} → ${show(y)}`)
  }
  return out
}
