import { userError } from '../core/errors.ts'

/**
 * The tags of an image repository, from the registry's HTTP API (distribution spec:
 * GET /v2/<name>/tags/list, pages linked by `Link: <…>; rel="next"`). A registry that asks
 * for a token (`WWW-Authenticate: Bearer realm=…,service=…,scope=…`) gets an anonymous one
 * first, as `docker pull` does for a public repository. What a bisect over published tags
 * starts from; the order comes from catalog/version-order.ts.
 */
export interface RepoRef {
  /** host[:port] */
  registry: string
  /** Repository path in the registry (`nginx`, `library/nginx`, `envoyproxy/envoy`). */
  repository: string
  /** http for loopback (a local registry without TLS), https elsewhere. */
  scheme: 'http' | 'https'
}

/** `127.0.0.1:5000/nginx` → its registry and repository; a ref without a registry host is an error (the official registry must be named). */
export function parseRepoRef(ref: string): RepoRef {
  const m = /^([a-zA-Z0-9.-]+(?::\d+)?)\/([a-z0-9]+(?:[._/-][a-z0-9]+)*)$/.exec(ref.trim())
  if (!m || !/[.:]|^localhost$/.test(m[1]!))
    throw userError(
      `--tags-from ${ref}`,
      'not a repository reference with its registry',
      'Write REGISTRY/REPOSITORY, e.g. 127.0.0.1:5000/nginx (official images: the registry host and library/nginx)',
    )
  const registry = m[1]!
  const loopback = /^(127\.\d+\.\d+\.\d+|localhost)(:\d+)?$/.test(registry)
  return { registry, repository: m[2]!, scheme: loopback ? 'http' : 'https' }
}

type Fetch = typeof fetch

/** The anonymous token a Bearer challenge asks for. */
async function bearerToken(challenge: string, f: Fetch): Promise<string> {
  const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))
  if (!params.realm) throw new Error(`registry asked for authentication it does not describe (${challenge})`)
  const url = new URL(params.realm)
  for (const k of ['service', 'scope']) if (params[k]) url.searchParams.set(k, params[k]!)
  const r = await f(url)
  if (!r.ok) throw new Error(`token ${url.origin}: HTTP ${r.status}`)
  const body = (await r.json()) as { token?: string; access_token?: string }
  const token = body.token ?? body.access_token
  if (!token) throw new Error(`token ${url.origin}: no token in the answer`)
  return token
}

/** Every tag of the repository, in the registry's order; one line naming the registry when it cannot be read. */
export async function listTags(ref: RepoRef, o: { fetch?: Fetch; pageSize?: number; timeoutMs?: number } = {}): Promise<string[]> {
  const f = o.fetch ?? fetch
  const where = `${ref.registry}/${ref.repository}`
  let next: string | null = `${ref.scheme}://${ref.registry}/v2/${ref.repository}/tags/list?n=${o.pageSize ?? 1000}`
  let token: string | undefined
  const tags: string[] = []
  try {
    for (let page = 0; next && page < 1000; page++) {
      const get = (): Promise<Response> =>
        f(next!, { headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) })
      let r = await get()
      const challenge = r.headers.get('www-authenticate')
      if (r.status === 401 && !token && challenge?.startsWith('Bearer ')) {
        token = await bearerToken(challenge, f)
        r = await get()
      }
      if (r.status === 404)
        throw userError(`--tags-from ${where}`, 'the registry has no such repository', 'Check the name (official images live under library/)')
      if (!r.ok) throw new Error(`HTTP ${r.status}`)
      const body = (await r.json()) as { tags?: string[] | null }
      tags.push(...(body.tags ?? []))
      // The Link header is relative to the registry (distribution spec).
      const link = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')
      next = link ? new URL(link[1]!, `${ref.scheme}://${ref.registry}`).toString() : null
    }
  } catch (e) {
    if (e instanceof Error && e.name === 'UserError') throw e
    throw userError(
      `--tags-from ${where}`,
      `the registry does not answer (${(e as Error).message.split('\n')[0]})`,
      'Start the registry, or bisect over the catalog versions (drop --tags-from)',
    )
  }
  return tags
}
