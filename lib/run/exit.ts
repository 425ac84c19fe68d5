import { interrupted, untilExit } from '../runtime/shutdown.ts'
import { MultiHostRuntime } from '../runtime/docker/multi-host.ts'
import type { Logger } from '../core/log.ts'
import type { Runtime } from '../runtime/types.ts'
import { withImages } from './hosts.ts'
import type { RunRecord } from './manifest.ts'

/** A kill keeps every appended row; the manifest says which step was interrupted. Returns the unhook. */
export function recordOnExit(record: RunRecord): () => void {
  const onExit = () => {
    if (record.current) record.manifest.steps[record.current] = 'interrupted'
    record.invocation.finished ??= new Date().toISOString()
    try {
      record.save()
    } catch {
      // Inside 'exit' a throw is a stack trace; the error that ended the run (e.g. a full disk) was said already.
    }
  }
  process.once('exit', onExit)
  return () => void process.removeListener('exit', onExit)
}

/** Every series measured: the run and this invocation are finished. */
export function recordFinished(record: RunRecord): void {
  record.manifest.finished = new Date().toISOString()
  record.invocation.finished = record.manifest.finished
  record.save()
}

/**
 * The run ended by an error: the series it was in failed. After a signal the handler stops
 * the roles and exits 130/143 and the exit hook records 'interrupted': awaited here, so that
 * the close neither unhooks that nor stops the roles a second time.
 */
export async function recordFailed(record: RunRecord): Promise<void> {
  if (interrupted()) await untilExit()
  if (record.current) record.manifest.steps[record.current] = 'failed'
  record.invocation.finished = new Date().toISOString()
  record.save()
}

/** However the run ended: the exit hook off, the hosts' images recorded, what each host's reader cost said, every role stopped. */
export async function closeRun(record: RunRecord, runtime: Runtime, unhook: () => void, log?: Logger): Promise<void> {
  unhook()
  if (runtime instanceof MultiHostRuntime && record.manifest.hosts) {
    record.manifest.hosts = withImages(record.manifest.hosts, runtime)
    try {
      record.save()
    } catch {}
  }
  if (runtime instanceof MultiHostRuntime) for (const line of runtime.readerCosts()) log?.info(line)
  await runtime.stopAll()
}
