/** What a runtime must do when the harness is interrupted or exits. */
export interface Stoppable {
  stopAll(): Promise<void>
  /** Last resort inside process 'exit', where nothing asynchronous runs. */
  killAllSync(): void
}

const active = new Set<Stoppable>()
let installed = false

/**
 * One SIGINT/SIGTERM handler for every runtime of the process (native and Docker alike):
 * stop what they started, then exit as the signal asks; completed rows are on disk already.
 */
export function trackRuntime(r: Stoppable): void {
  active.add(r)
  if (installed) return
  installed = true
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
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
