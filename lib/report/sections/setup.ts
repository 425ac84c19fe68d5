import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc, num } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

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
    `Profile settings: ${m.profile_settings.repeats} repeats, ${m.profile_settings.warmup_s} s warm-up, ${m.profile_settings.duration_s} s window, ${m.profile_settings.connections} connections, ${m.profile_settings.threads} generator thread${m.profile_settings.threads === 1 ? '' : 's'}; repeats interleaved across proxies in an order shuffled with seed ${m.order_seed}.`,
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
