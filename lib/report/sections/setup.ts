import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc, num } from '../markdown.ts'
import type { Calibration, Fingerprint, Manifest } from '../../data/schema.ts'
import type { ArticleInput } from './input.ts'

function repeatsText(p: Manifest['profile_settings']): string {
  if (p.max_repeats === undefined || p.max_repeats <= p.repeats) return `${p.repeats} repeats`
  return `${p.repeats} to ${p.max_repeats} repeats (more rounds until a cell's median is within ±${num((p.precision ?? 0) * 100)}% at 95%${p.budget_s ? `, at most ${num(p.budget_s)} s more per phase` : ''})`
}

/** What the machine was, so a reader can tell a machine difference from a proxy difference. */
function fingerprintText(f: Fingerprint | null): string {
  if (!f) return 'Machine fingerprint: not recorded (a run written before fingerprints).'
  const vulns = Object.entries(f.vulnerabilities).filter(([, v]) => !/^Not affected$/.test(v))
  return `Machine fingerprint: ${esc(f.cpu_model)} (family ${esc(f.cpu_family)}, model ${esc(f.cpu_model_number)}, stepping ${esc(f.stepping)}, microcode ${esc(f.microcode)}), kernel ${esc(f.kernel_release)}, clock source ${esc(f.clocksource)}, virtualisation ${esc(f.virtualization)}; mitigations: ${vulns.length ? vulns.map(([k, v]) => `${esc(k)} ${esc(v)}`).join('; ') : 'none reported'}.`
}

function calibrationText(c: Calibration | null): string {
  if (!c) return 'Calibration: not recorded in this run.'
  const us = (x: number | null) => (x === null ? 'not measured' : `${num(x)} µs`)
  return `Calibration on the proxy's cpuset ${esc(c.cpuset)}: loopback round trip ${us(c.loopback_rtt_us)} CPU, ECDSA P-256 sign ${us(c.ecdsa_p256_sign_us)}, RSA-4096 sign ${us(c.rsa4096_sign_us)} (the \`direct\` row is the reference of the calibrated unit: README "Calibrated unit").`
}

/** Host, runtime, cpusets, profile, the validity rules, components, images and tools. */
export function setupSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const m = run.manifest
  a.heading(2, 'Setup and fairness')
  const shared = Object.entries(m.cpusets).reduce<Record<string, string[]>>((acc, [role, set]) => ({ ...acc, [set]: [...(acc[set] ?? []), role] }), {})
  a.bullets([
    `Host: ${esc(m.host.cpu_model)}, ${m.host.cores} cores, ${num(m.host.memory_gib)} GiB, kernel ${esc(m.host.kernel)}.`,
    `Runtime: **${esc(m.runtime)}**, network ${esc(m.network_mode)}; CPU read from ${esc(m.cpu_source)}.`,
    `Cpusets: ${Object.entries(shared).map(([set, roles]) => `CPU ${esc(set)}: ${esc(roles.join(' + '))}`).join('; ')}.` +
      (m.cpusets_shared ? ' **Roles share a core on this machine**: the generator and the backend compete with each other, never with the proxy, whose CPU is measured alone.' : ' Every role has its own cores.'),
    `Profile settings: ${repeatsText(m.profile_settings)}, ${m.profile_settings.warmup_s} s warm-up, ${m.profile_settings.duration_s} s window, ${m.profile_settings.connections} connections, ${m.profile_settings.threads} generator thread${m.profile_settings.threads === 1 ? '' : 's'}; repeats interleaved across proxies in an order shuffled with seed ${m.order_seed}.`,
    fingerprintText(m.fingerprint),
    calibrationText(m.calibration),
    `Every cell is verified before it is measured (status 200, body, HTTP/1.1 over TLS); a cell with ≥ 1% errors, a saturated generator (≥ 90% of its cpuset) or a failed verification is marked invalid with its reason and left out of every median.`,
    `Harness commit ${esc(m.harness_commit)}.`,
  ])
  a.table('components', [
    { title: 'component', value: (c) => c.component },
    { title: 'version', value: (c) => c.version },
    { title: 'source', value: (c) => c.source },
    { title: 'sha256', value: (c) => c.sha256, show: (c) => (c.sha256 ? `\`${c.sha256.slice(0, 12).replace(/[^0-9a-f]/g, '')}\`` : '—') },
  ], m.components)
  if (m.images.length) {
    a.table('images', [
      { title: 'component', value: (i) => i.component },
      { title: 'version', value: (i) => i.version },
      { title: 'image', value: (i) => i.image },
      { title: 'id / digest', value: (i) => i.digest ?? i.id },
    ], m.images)
  }
  a.table('tools', [{ title: 'tool', value: (t) => t[0] }, { title: 'version', value: (t) => t[1] }], Object.entries(m.tools))
  return []
}
