import type { Profile } from '../catalog/profiles.ts'
import type { Logger } from '../core/log.ts'
import type { QuietRecord } from '../data/schema.ts'
import { byCommand, sampleHosts, waitForQuiet, type ForeignProcess, type MachineSample } from '../measure/culprits.ts'
import { coresOutside } from '../measure/disturbance.ts'
import { MAX_FOREIGN_SHARE } from '../measure/validity.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import type { WindowGate } from '../measure/cell.ts'
import { sliceLayout } from '../measure/slices.ts'
import type { Runtime, RunningRole } from '../runtime/types.ts'

/**
 * The run's budget for other work on the machine (docs/method/disturbance.md#waiting): after
 * a disturbed window the run waits until the foreign load on the bench's cores has stayed
 * under the disturbance threshold for the settle time, then goes on; the redo itself lands
 * in the next round's order. Waits and disturbed windows are charged to one budget per run;
 * once it is spent, disturbed windows are redone at once, within the profile's maxDisturbed.
 */
export interface QuietSettings {
  budgetS: number
  settleS: number
  /** The groups of cores judged apart, as the detector judges them: the proxy's, and the load's outside them. */
  groups: string[]
  /** Longest single wait: a machine that stays busy must not spend the whole budget on the first window. */
  maxWaitS: number
  /** Roles on several hosts: a moment of every kernel (sampleHosts), the groups in HOST_CORE_STRIDE's numbering; absent: this machine's /proc. */
  sample?: (roles: readonly RunningRole[]) => Promise<MachineSample>
}

/**
 * Settle time where a profile states none: two polls. It only has to see a burst end; a
 * window that starts in a lull too short is still judged slice by slice (docs/method/disturbance.md#waiting).
 */
export const SETTLE_S = 0.5

/** After a disturbed window, or one counted from its clean slices, this many windows wait for quiet before their load. */
export const WATCHFUL_WINDOWS = 3

/**
 * Defaults where a profile states none: the profile's window length × 20, settle SETTLE_S.
 * With a runtime whose roles run on several hosts, every host is waited for, on its own cores.
 */
export function quietSettings(p: Profile, cpus: CpuLayout, o: { budgetS?: number; runtime?: Runtime } = {}): QuietSettings {
  const windowS = p.warmupS + p.durationS + p.tailS
  const { runtime } = o
  const hosts = runtime?.readHosts && runtime.processes ? { readHosts: runtime.readHosts.bind(runtime), processes: runtime.processes.bind(runtime) } : null
  const cores = hosts ? sliceLayout({ cpus, runtime: runtime! }, true).cpus : cpus
  const load = coresOutside(`${cores.generator},${cores.backend}`, cores.proxy)
  return {
    budgetS: o.budgetS ?? p.quietBudgetS ?? 20 * windowS,
    settleS: p.settleS ?? SETTLE_S,
    groups: [cores.proxy, ...(load ? [load] : [])],
    maxWaitS: Math.max(10, 5 * windowS),
    ...(hosts ? { sample: (roles: readonly RunningRole[]) => sampleHosts(hosts, roles) } : {}),
  }
}

export class QuietBudget implements WindowGate {
  readonly record: QuietRecord
  /** A window was disturbed: the next one waits for quiet first (or the phase, if that one never reaches its gate). */
  private owed = false
  /** Windows that still wait at their gate: a neighbour seen recently comes back. */
  private watchful = 0
  /** `wait`: how to wait (waitForQuiet on this machine; a unit test's stand-in). */
  constructor(
    readonly settings: QuietSettings,
    private readonly log: Logger,
    previous?: QuietRecord,
    preflight: string | null = null,
    private readonly wait: typeof waitForQuiet = waitForQuiet,
  ) {
    // A resumed run goes on with what its earlier invocations spent.
    this.record = previous
      ? { ...previous, budget_s: settings.budgetS, settle_s: settings.settleS, preflight: previous.preflight ?? preflight }
      : { budget_s: settings.budgetS, settle_s: settings.settleS, preflight, waits: 0, waited_s: 0, unquiet_waits: 0, spent_s: 0 }
  }

  /** Seconds of the budget left. */
  leftS(): number {
    return Math.max(0, this.record.budget_s - this.record.spent_s)
  }

  /** A disturbed window: its wall time is charged to the budget, and the next window waits for quiet (beforeWindow). */
  disturbed(seconds: number): void {
    this.record.spent_s = round(this.record.spent_s + seconds)
    this.sawOtherWork()
  }

  /** A window disturbed in part (counted from its clean slices, or disturbed): the next WATCHFUL_WINDOWS windows wait for quiet first. */
  sawOtherWork(): void {
    this.owed = true
    this.watchful = WATCHFUL_WINDOWS
  }

  /**
   * Called by the cell protocol with the stack up, just before its load starts: within
   * WATCHFUL_WINDOWS windows of one disturbed, waits for quiet, so the window starts in a
   * quiet stretch (between a neighbour's bursts) rather than a stack start later.
   */
  async beforeWindow(roles: readonly RunningRole[] = []): Promise<void> {
    if (!this.owed && this.watchful === 0) return
    this.watchful = Math.max(0, this.watchful - 1)
    await this.waitForQuiet(roles)
  }

  /** Whether a disturbed window's wait is still owed (its next task never reached its load): the phase waits itself. */
  get waitOwed(): boolean {
    return this.owed
  }

  /** Waits for quiet within the budget left, the running roles not foreign; returns the seconds waited (0: budget spent, or a host not read). */
  async waitForQuiet(roles: readonly RunningRole[] = []): Promise<number> {
    this.owed = false
    const log = this.log
    const maxS = Math.min(this.leftS(), this.settings.maxWaitS)
    if (maxS <= 0) return 0
    log.progress(
      `waiting for the machine to be quiet (foreign load ≤ ${Math.round(100 * MAX_FOREIGN_SHARE)}% for ${this.settings.settleS} s, at most ${Math.round(maxS)} s)`,
    )
    const { sample } = this.settings
    const w = await this.wait({
      groups: this.settings.groups,
      threshold: MAX_FOREIGN_SHARE,
      settleS: this.settings.settleS,
      maxS,
      // On several hosts the samples name the harness's own, each in its kernel's pids.
      ...(sample ? { roots: [], sample: () => sample(roles) } : { roots: [process.pid, ...roles.map((r) => r.pid)] }),
    }).catch((e: Error) => {
      log.warn(`no wait for quiet: ${e.message.split('\n')[0]}`)
      return null
    })
    if (!w) return 0
    this.record.waits++
    this.record.waited_s = round(this.record.waited_s + w.waitedS)
    this.record.spent_s = round(this.record.spent_s + w.waitedS)
    if (!w.quiet) this.record.unquiet_waits++
    if (!w.quiet)
      log.warn(
        `no quiet ${this.settings.settleS} s within ${Math.round(w.waitedS)} s (${topText(w.processes)}); going on, ${Math.round(this.leftS())} s of the quiet budget left`,
      )
    return w.waitedS
  }
}

const round = (x: number) => Number(x.toFixed(2))
const topText = (procs: readonly ForeignProcess[]) =>
  byCommand(procs)
    .slice(0, 3)
    .map((c) => `${c.command} ${Math.round(100 * c.share)}%`)
    .join(', ') || 'no single process'
