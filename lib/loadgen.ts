import { exec, lastLine } from './exec.ts'
import { goBinaryPath } from './gobuild.ts'

/** JSON summary of `loadgen requests`. */
export interface RequestsResult {
  requests: number
  ok: number
  errors: number
  error_samples: string[]
  status: Record<string, number>
  body_mismatch: number
  conns_opened: number
  proto: string
  tls_version: string
  alpn: string
  duration_s: number
}

export interface RequestsOptions {
  url: string
  n: number
  c: number
  cacert?: string
  expectBody?: string
  /** Pin the generator like any other role. */
  cpus?: string
}

/** Sends n keep-alive HTTP/1.1 GETs and checks status 200 (and the body when given). */
export async function loadgenRequests(o: RequestsOptions): Promise<RequestsResult> {
  const args = ['requests', '-url', o.url, '-n', String(o.n), '-c', String(o.c)]
  if (o.cacert) args.push('-cacert', o.cacert, '-server-name', 'localhost')
  if (o.expectBody !== undefined) args.push('-expect-body', o.expectBody)
  const [cmd, argv] = o.cpus ? ['taskset', ['-c', o.cpus, goBinaryPath('loadgen'), ...args]] : [goBinaryPath('loadgen'), args]
  const r = await exec(cmd, argv as string[], { timeoutMs: 120_000 })
  if (r.code !== 0 && r.code !== 1) throw new Error(`loadgen requests failed (exit ${r.code}): ${lastLine(r.stderr)}`)
  return JSON.parse(r.stdout) as RequestsResult
}
