import type Docker from 'dockerode'
import type { Logger } from '../../core/log.ts'
import { dockerClient } from '../docker-engine.ts'
import { errorLine, follow, imageInspect } from './engine-calls.ts'

/**
 * Whether the registry of `ref` answers within the timeout: the engine asks the
 * registry for the manifest (GET /distribution/<ref>/json) without pulling. Any HTTP
 * answer from the engine that is not a network failure counts as "answers".
 */
export async function registryAnswers(ref: string, timeoutMs = 5000, docker = dockerClient()): Promise<{ answers: boolean; reason: string }> {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    await (docker.getImage(ref) as unknown as { distribution(o: object): Promise<unknown> }).distribution({ abortSignal: abort.signal })
    return { answers: true, reason: `${ref} found` }
  } catch (e) {
    if (abort.signal.aborted) return { answers: false, reason: `no answer within ${timeoutMs / 1000} s` }
    const msg = errorLine(e)
    // 401/404: the registry answered (unknown repository or tag); 500 from the engine wraps network errors.
    const status = (e as { statusCode?: number }).statusCode
    if ((status === 401 || status === 403 || status === 404) && !/dial|lookup|timeout|connection refused|no such host/i.test(msg))
      return { answers: true, reason: msg }
    return { answers: false, reason: msg }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Pulls `ref` through the engine with a progress line (bytes of all layers). A missing
 * tag or an unreachable registry is one line; a pull that stalls (no progress for
 * `idleMs`) is aborted rather than left hanging.
 */
export async function pullImage(ref: string, log: Logger, opts: { idleMs?: number; docker?: Docker } = {}): Promise<{ id: string; digest: string | null }> {
  const docker = opts.docker ?? dockerClient()
  const idleMs = opts.idleMs ?? 60_000
  const abort = new AbortController()
  let timer = setTimeout(() => abort.abort(), idleMs)
  const touch = () => {
    clearTimeout(timer)
    timer = setTimeout(() => abort.abort(), idleMs)
  }
  const layers = new Map<string, { current: number; total: number }>()
  let digest: string | null = null
  try {
    const stream = await docker.pull(ref, { abortSignal: abort.signal } as object)
    await follow(docker, stream, (e) => {
      touch()
      if (typeof e.status === 'string' && e.status.startsWith('Digest: ')) digest = e.status.slice('Digest: '.length).trim()
      // Bytes downloaded per layer (extraction reports its own progress; not counted).
      if (e.id && e.status === 'Downloading' && e.progressDetail?.total)
        layers.set(e.id, { current: e.progressDetail.current ?? 0, total: e.progressDetail.total })
      if (e.id && /^(Download complete|Pull complete|Already exists)$/.test(e.status ?? '')) {
        const l = layers.get(e.id)
        if (l) l.current = l.total
      }
      const cur = [...layers.values()].reduce((s, l) => s + l.current, 0)
      const tot = [...layers.values()].reduce((s, l) => s + l.total, 0)
      const pct = tot > 0 ? Math.min(100, Math.round((cur / tot) * 100)) : 0
      const bar = '#'.repeat(Math.round(pct / 5)).padEnd(20, '.')
      log.progress(`pulling ${ref} [${bar}] ${pct}% ${(cur / 1e6).toFixed(1)}/${(tot / 1e6).toFixed(1)} MB`)
    })
  } catch (e) {
    if (abort.signal.aborted) throw new Error(`pull of ${ref} stalled: no progress for ${idleMs / 1000} s`)
    throw new Error(`pull of ${ref} failed: ${errorLine(e)}`)
  } finally {
    clearTimeout(timer)
  }
  const img = await imageInspect(docker, ref)
  if (!img) throw new Error(`pull of ${ref} finished but the engine has no such image`)
  const repo = ref.replace(/@.*$/, '').replace(/:[^:/]+$/, '')
  digest ??= (img.RepoDigests ?? []).find((d) => d.startsWith(`${repo}@`))?.split('@')[1] ?? null
  return { id: img.Id, digest }
}
