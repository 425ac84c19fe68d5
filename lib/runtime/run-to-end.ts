import { readFileSync } from 'node:fs'
import type { Exit, RoleSpec, Runtime } from './types.ts'

/**
 * Starts a short-lived role (a check, a probe), waits for it to end, at most `limitS`,
 * stops it, and returns how it ended (null: still running at the limit) and its output.
 */
export async function runToEnd(runtime: Pick<Runtime, 'start' | 'stop'>, spec: RoleSpec, limitS: number): Promise<{ exit: Exit | null; output: string }> {
  const role = await runtime.start(spec)
  let exit: Exit | null
  try {
    exit = await Promise.race([role.exited, new Promise<null>((r) => setTimeout(() => r(null), limitS * 1000).unref())])
  } finally {
    await runtime.stop(role)
  }
  let output = ''
  try {
    output = readFileSync(spec.logFile, 'utf8')
  } catch {}
  return { exit, output }
}
