import { sha256Text } from '../../core/hash.ts'
import { bootId, procStartTime } from '../proc.ts'

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
/** The harness's start time (/proc/PID/stat field 22): a reused pid is not the harness. */
export const LABEL_HARNESS_START = 'proxybench.harness-start'

/** The labels that name this harness. */
export const harnessLabels = (): Record<string, string> => ({
  [LABEL_HARNESS]: String(process.pid),
  [LABEL_BOOT]: bootId,
  [LABEL_HARNESS_START]: procStartTime(process.pid) ?? '',
})

/** Whether the harness that labelled a container or network has gone (another boot, or its pid is now another process). */
export function harnessGone(labels: Record<string, string> | undefined, self = { pid: process.pid, boot: bootId }): boolean {
  const pid = Number(labels?.[LABEL_HARNESS])
  if (!Number.isInteger(pid) || pid <= 0) return true
  if (labels?.[LABEL_BOOT] && labels[LABEL_BOOT] !== self.boot) return true
  if (pid === self.pid) return false
  const start = procStartTime(pid)
  if (start === null) return true
  return Boolean(labels?.[LABEL_HARNESS_START]) && labels![LABEL_HARNESS_START] !== start
}

/** A container name Docker accepts: [a-zA-Z0-9][a-zA-Z0-9_.-]*, kept short. */
export function containerName(runId: string, name: string, n: number): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_.-]/g, '_')
  let full = `pb-${clean(runId)}-${clean(name)}-${n}`
  if (full.length > 120) full = `${full.slice(0, 100)}-${sha256Text(full).slice(0, 12)}`
  return full
}
