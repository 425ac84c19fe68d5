import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256Text } from '../../core/hash.ts'
import { cacheDir } from '../../core/paths.ts'
import { isAlive } from '../native.ts'

/*
 * What marks a container or network as proxybench's: its labels (run, role, name and the
 * harness pid + boot id, so that one whose harness has gone can be found and removed),
 * its name, and the state directory where key copies are recorded (lib/runtime/docker/
 * cleanup.ts).
 */

export const LABEL_RUN = 'proxybench.run'
export const LABEL_ROLE = 'proxybench.role'
export const LABEL_NAME = 'proxybench.name'
export const LABEL_HARNESS = 'proxybench.harness'
export const LABEL_BOOT = 'proxybench.boot'

export const bootId = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return ''
  }
})()

export const stateDir = () => join(cacheDir(), 'docker')

/** Copies written into a shared tree (certs/), per harness pid, for the next start to clean. */
export interface State {
  harnessPid: number
  boot: string
  copies: string[]
}

/** Whether the harness that labelled a container or network has gone. */
export function harnessGone(labels: Record<string, string> | undefined, self = { pid: process.pid, boot: bootId }): boolean {
  const pid = Number(labels?.[LABEL_HARNESS])
  if (!Number.isInteger(pid) || pid <= 0) return true
  if (labels?.[LABEL_BOOT] && labels[LABEL_BOOT] !== self.boot) return true
  if (pid === self.pid) return false
  return !isAlive(pid)
}

/** A container name Docker accepts: [a-zA-Z0-9][a-zA-Z0-9_.-]*, kept short. */
export function containerName(runId: string, name: string, n: number): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_.-]/g, '_')
  let full = `pb-${clean(runId)}-${clean(name)}-${n}`
  if (full.length > 120) full = `${full.slice(0, 100)}-${sha256Text(full).slice(0, 12)}`
  return full
}
