/** What a runtime must do when the harness is interrupted or exits. */
export interface Stoppable {
  stopAll(): Promise<void>
  /** Last resort inside process 'exit', where nothing asynchronous runs. */
  killAllSync(): void
}

const active = new Set<Stoppable>()
let installed = false
let signalled: NodeJS.Signals | null = null

/**
 * The signal this process is stopping on, or null. Set before the roles are killed, so the
 * series code still running can tell a role killed by the harness from one that failed:
 * after a signal no row is written and no role is started.
 */
export const interrupted = (): NodeJS.Signals | null => signalled

/** For tests: act as if a signal had arrived (null: as if none had). */
export function markInterrupted(signal: NodeJS.Signals | null): void {
  signalled = signal
}

/** What code running after a signal awaits: the signal handler ends the process once the roles are stopped. */
export const untilExit = (): Promise<never> => new Promise<never>(() => {})

/**
 * One SIGINT/SIGTERM handler for every runtime of the process (native and Docker alike):
 * stop what they started, then exit as the signal asks; completed rows are on disk already.
 */
export function trackRuntime(r: Stoppable): void {
  active.add(r)
  if (installed) return
  installed = true
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      signalled = signal
      process.stderr.write(`\nproxybench: ${signal}: stopping what this run started; completed measurements are kept\n`)
      void Promise.all([...active].map((x) => x.stopAll())).finally(() => process.exit(code))
    })
  }
  // An uncaught crash: no process or container may outlive the harness.
  process.once('exit', () => {
    for (const x of active) x.killAllSync()
  })
}

export function untrackRuntime(r: Stoppable): void {
  active.delete(r)
}
