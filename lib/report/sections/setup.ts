import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc, num } from '../markdown.ts'
import type { Fingerprint, Manifest } from '../../data/schema.ts'
import { groupBy } from '../../data/grouping.ts'
import type { ArticleInput } from './input.ts'
import { quietLine, quietSummary, tooBusyLines } from '../../data/quiet.ts'

function repeatsText(p: Manifest['profile_settings']): string {
  if (p.max_repeats === undefined || p.max_repeats <= p.repeats) return `${p.repeats} repeats`
  return `${p.repeats} to ${p.max_repeats} repeats (more rounds until a cell's median is within ±${num((p.precision ?? 0) * 100)}% at 95%${p.budget_s ? `, at most ${num(p.budget_s)} s more per phase` : ''})`
}

/** What the machine was, so a reader can tell a machine difference from a proxy difference. */
function fingerprintText(f: Fingerprint | null): string {
  if (!f) return 'Machine fingerprint: not recorded (a run written before fingerprints).'
  const vulns = Object.entries(f.vulnerabilities).filter(([, v]) => !/^Not affected$/.test(v))
  return `Machine fingerprint: ${esc(f.cpu_model)} (family ${esc(f.cpu_family)}, model ${esc(f.cpu_model_number)}, stepping ${esc(f.stepping)}, microcode ${esc(f.microcode)}), kernel ${esc(f.kernel_release)}, clock source ${esc(f.clocksource)}, virtualisation ${esc(f.virtualization)}${f.irq_time_accounting ? `, IRQ time accounting ${esc(f.irq_time_accounting)}` : ''}; mitigations: ${vulns.length ? vulns.map(([k, v]) => `${esc(k)} ${esc(v)}`).join('; ') : 'none reported'}.`
}

/**
 * Which rows came from which invocation, when a resume changed settings (--allow-changes)
 * or ran more than once: the code, settings and machine of each, and its row count.
 */
function invocations(a: Article, run: ArticleInput['run']): void {
  const inv = run.manifest.invocations
  if (inv.length < 2 && !inv.some((i) => i.changes.length)) return
  const rows = new Map<number | null, number>()
  for (const r of [...run.measurements, ...run.handshakes, ...run.websocket]) rows.set(r.invocation ?? null, (rows.get(r.invocation ?? null) ?? 0) + 1)
  a.para(
    `This run was measured by ${inv.length} invocations (the \`invocation\` column of each CSV row names its own)${inv.some((i) => i.changes.length) ? '; **settings changed between them** (--allow-changes): compare rows of different invocations with care' : ''}.`,
  )
  a.table(
    'invocations',
    [
      { title: 'invocation', value: (i) => i.id },
      { title: 'started', value: (i) => i.started.slice(0, 19).replace('T', ' ') },
      { title: 'commit', value: (i) => `${i.commit}${i.dirty ? ' (dirty)' : ''}` },
      { title: 'runtime', value: (i) => `${i.runtime}, ${i.network}` },
      { title: 'cpusets', value: (i) => `proxy=${i.cpusets.proxy} backend=${i.cpusets.backend} generator=${i.cpusets.generator}` },
      { title: 'seed', value: (i) => i.seed },
      { title: 'changes', value: (i) => i.changes.join('; ') || '—' },
      { title: 'rows', value: (i) => rows.get(i.id) ?? 0 },
    ],
    inv,
  )
  if (rows.get(null)) a.para(`${rows.get(null)} rows carry no invocation: written before invocations were recorded.`)
}

/** Roles on several hosts (--hosts): where each ran, what each host is, and the network the numbers came over. */
function hostsPart(a: Article, h: NonNullable<Manifest['hosts']>): void {
  const n = h.network
  a.para(
    `**Roles on ${h.hosts.length} Docker host${h.hosts.length === 1 ? '' : 's'}** (topology from ${esc(h.source)}): each role's CPU read on its own host, every window timed by the harness (the hosts' clocks are never compared); the host above is the machine that drove them.` +
      (n === null
        ? ' The generator and the proxy share a host: no network between them to measure.'
        : ` Network from the generator's host to the proxy's (${esc(n.from)} → ${esc(n.to)}), measured before the cells: ${n.connect_echo_p50_ms === null ? 'short connections not measured' : `${num(n.connect_echo_p50_ms)} ms per short connection (connect, 64-byte echo, close; p50)`}, ${n.stream_mib_per_s === null ? 'stream not measured' : `${num(n.stream_mib_per_s)} MiB/s echoed on one stream`}${n.issue ? ` (${esc(n.issue)})` : ''}.`),
  )
  a.table(
    'topology',
    [
      { title: 'role', value: (r) => r.role },
      { title: 'engine', value: (r) => r.engine },
      { title: 'reached at', value: (r) => r.address },
      { title: 'cpuset', value: (r) => r.cpuset },
      { title: 'files', value: (r) => r.files },
    ],
    h.roles,
  )
  a.table(
    'hosts',
    [
      { title: 'engine', value: (x) => x.engine },
      { title: 'name', value: (x) => x.name },
      { title: 'CPU', value: (x) => x.fingerprint?.cpu_model ?? 'not read' },
      { title: 'CPUs', value: (x) => x.cpus },
      { title: 'memory GiB', value: (x) => x.memory_gib },
      { title: 'kernel', value: (x) => x.kernel },
      { title: 'OS', value: (x) => x.os },
      { title: 'engine version', value: (x) => x.engine_version },
      { title: 'images sent', value: (x) => x.images.filter((i) => i.sent).length },
    ],
    h.hosts,
  )
}

/** What other work on the machine cost the run, as the end summary says it (docs/method/disturbance.md). */
function otherWorkText(run: ArticleInput['run']): string {
  const q = run.manifest.quiet
  const summary = quietSummary(run, q, run.manifest.profile_settings)
  const line = quietLine(summary)
  const rule = q
    ? ` A disturbed window (hypervisor steal or CPU of other processes on the proxy's or the load's cores above the thresholds of the validity rules) is invalid, never used; the run then waited until the foreign load stayed under the threshold for ${num(q.settle_s)} s and redid the window in a later round, within a budget of ${num(q.budget_s)} s lost to other work (${num(q.spent_s)} s spent${q.unquiet_waits ? `; ${q.unquiet_waits} waits ended before the machine was quiet` : ''}).`
    : ''
  // Said where it happened only: a run written before slices has no such row.
  const sliced = summary.counted
    ? ` A window disturbed in part whose clean half-second slices cover at least half of it counts those slices only: its row's \`counted_share\` is below 1 (docs/method/disturbance.md#slices).`
    : ''
  const extended = summary.extended
    ? ` A closed window disturbed as a whole went on, a slice at a time, until its clean slices covered the profile's window or it reached twice that length; its row's \`duration_s\` is the length it ran (docs/method/disturbance.md#extension).`
    : ''
  // A cell other work left short has no figure: its rows were disturbed, never used.
  const tooBusy = summary.tooBusy.length ? ` Cells not measured, the machine too busy: ${tooBusyLines(summary).map(esc).join('; ')}.` : ''
  return `${esc(line.replace(/^other work: /, 'Other work on this machine: '))}.${rule}${sliced}${extended}${tooBusy}${q?.preflight ? ` Before the first window: ${esc(q.preflight.replace(/^other work on this machine: /, ''))}.` : ''}`
}

/** Builds other than the pinned ones (substituted, restored from the archive) and versions not runnable here; empty when every pin was measured. */
export function buildsText(m: Pick<ArticleInput['run']['manifest'], 'components' | 'not_runnable'>): string {
  const moved = m.components.filter((c) => c.build_note).map((c) => esc(c.build_note!))
  const gone = m.not_runnable.map((c) => esc(c.reason))
  if (moved.length + gone.length === 0) return ''
  return `**Builds not as pinned** (docs/catalog.md#when-a-pin-moves): ${[...moved, ...gone].join('; ')}.`
}

/** A sha256 (with or without its "sha256:" prefix) as 12 hex digits: a whole one is wider than an A4 page's table; the CSV keeps it whole. */
const shortSha = (sha: string) =>
  `\`${sha
    .replace(/^sha256:/, '')
    .slice(0, 12)
    .replace(/[^0-9a-f]/g, '')}\``

export function setupSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const m = run.manifest
  a.heading(2, 'Setup and fairness')
  // Roles by the cpuset they share, in CPU order.
  const shared = [...groupBy(Object.entries(m.cpusets), ([, set]) => [set]).values()].sort((x, y) => x[0]![1].localeCompare(y[0]![1], 'en', { numeric: true }))
  a.bullets([
    `Host: ${esc(m.host.cpu_model)}, ${m.host.cores} cores, ${num(m.host.memory_gib)} GiB, kernel ${esc(m.host.kernel)}.`,
    `Runtime: **${esc(m.runtime)}**, network ${esc(m.network_mode)}; CPU read from ${esc(m.cpu_source)}.`,
    `Cpusets: ${shared.map((roles) => `CPU ${esc(roles[0]![1])}: ${esc(roles.map(([role]) => role).join(' + '))}`).join('; ')}.` +
      (m.cpusets_shared
        ? ' **Roles share a core on this machine**: the generator and the backend compete with each other, never with the proxy, whose CPU is measured alone.'
        : ' Every role has its own cores.'),
    `Profile settings: ${repeatsText(m.profile_settings)}, ${m.profile_settings.warmup_s} s warm-up, ${m.profile_settings.duration_s} s window, ${m.profile_settings.connections} connections, ${m.profile_settings.threads} generator thread${m.profile_settings.threads === 1 ? '' : 's'}; repeats interleaved across proxies in an order shuffled with seed ${m.order_seed}.`,
    fingerprintText(m.fingerprint),
    `Every cell is verified before it is measured (status 200, body or its size, HTTP/1.1 over TLS, plain HTTP for the http variants and the direct floor); a cell with ≥ 1% errors, a saturated generator (≥ 90% of its cpuset) or a failed verification is marked invalid with its reason and left out of every median.`,
    otherWorkText(run),
    ...[buildsText(m)].filter(Boolean),
    `Harness commit ${esc(m.harness_commit)}.`,
  ])
  if (m.hosts) hostsPart(a, m.hosts)
  // Versions, sources and hashes of every build, image and tool: for looking up (the bullets above say what ran).
  a.siteOnly('Components: every build with its source and sha256, the images with their ids or digests, the tools with their versions', () => {
    a.table(
      'components',
      [
        { title: 'component', value: (c) => c.component },
        { title: 'version', value: (c) => c.version },
        { title: 'source', value: (c) => c.source },
        { title: 'sha256', value: (c) => c.sha256, show: (c) => (c.sha256 ? shortSha(c.sha256) : '—') },
      ],
      m.components,
    )
    if (m.images.length) {
      a.table(
        'images',
        [
          { title: 'component', value: (i) => i.component },
          { title: 'version', value: (i) => i.version },
          { title: 'image', value: (i) => i.image },
          { title: 'id / digest', value: (i) => i.digest ?? i.id, show: (i) => shortSha(i.digest ?? i.id) },
        ],
        m.images,
      )
    }
    a.table(
      'tools',
      [
        { title: 'tool', value: (t) => t[0] },
        { title: 'version', value: (t) => t[1] },
      ],
      Object.entries(m.tools),
    )
  })
  invocations(a, run)
  return []
}
