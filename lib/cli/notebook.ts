import { UserError } from '../core/errors.ts'

/**
 * Runs a notebook's main: a UserError prints one line and exits 2, anything else is
 * a bug and keeps its stack trace.
 */
export async function runNotebook(main: (() => Promise<number | undefined>) | (() => Promise<void>)): Promise<void> {
  try {
    const code = await main()
    process.exitCode = typeof code === 'number' ? code : 0
  } catch (e) {
    if (e instanceof UserError) {
      process.stderr.write(`proxybench: ${e.message}\n`)
      process.exitCode = 2
      return
    }
    throw e
  }
}
