import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

/*
 * SSH host keys of ssh:// engines, checked as OpenSSH checks them (docs/hosts.md#host-keys-and-tls-engines):
 * the key the server offers must be listed for that host in a known_hosts file (plain or
 * hashed `|1|` entries, `[host]:port` for ports other than 22, wildcards, negations,
 * `@revoked`), or equal the fingerprint pinned for the host. An unknown key is refused
 * unless --accept-new-host-keys (StrictHostKeyChecking=accept-new), which records it; a
 * changed or revoked key is always refused.
 */

/** How one host's key is checked; parsed by lib/cli/hosts-options.ts. */
export interface HostKeyPolicy {
  /** Files read in order; the first is where an accepted new key is recorded. */
  knownHosts: string[]
  /** `SHA256:…`: only this key is accepted, known_hosts is not read. */
  fingerprint?: string
  /** Record a key the files do not know yet (a changed key is still refused). */
  acceptNew: boolean
}

export const userKnownHosts = () => join(homedir(), '.ssh', 'known_hosts')
export const GLOBAL_KNOWN_HOSTS = '/etc/ssh/ssh_known_hosts'
export const defaultKnownHosts = () => [userKnownHosts(), GLOBAL_KNOWN_HOSTS]

export interface KnownHostLine {
  file: string
  line: number
  marker: '' | '@revoked' | '@cert-authority'
  /** The host field as written: a comma list of patterns, or one `|1|salt|hash`. */
  hosts: string
  keyType: string
  key: Buffer
}

/** The lines of a known_hosts file that name a key (comments, blanks and unreadable lines skipped, as ssh does). */
export function parseKnownHosts(text: string, file: string): KnownHostLine[] {
  const out: KnownHostLine[] = []
  text.split('\n').forEach((raw, i) => {
    const fields = raw.trim().split(/\s+/)
    if (!fields[0] || fields[0].startsWith('#')) return
    const marker = fields[0] === '@revoked' || fields[0] === '@cert-authority' ? fields.shift()! : ''
    const [hosts, keyType, key] = fields
    if (!hosts || !keyType || !key || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return
    out.push({ file, line: i + 1, marker: marker as KnownHostLine['marker'], hosts, keyType, key: Buffer.from(key, 'base64') })
  })
  return out
}

/** The name a host is looked up by: `host`, or `[host]:port` off port 22. */
export const lookupName = (host: string, port: number) => (port === 22 ? host.toLowerCase() : `[${host.toLowerCase()}]:${port}`)

/** OpenSSH's pattern match: `*` any run, `?` one character, case-insensitive. */
function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .toLowerCase()
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )
  return re.test(name)
}

/** Whether a known_hosts host field names this host: a hashed entry, or a pattern list (a negated match wins). */
export function hostFieldMatches(field: string, host: string, port: number): boolean {
  const name = lookupName(host, port)
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|')
    if (!salt || !hash) return false
    const want = Buffer.from(hash, 'base64')
    const got = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest()
    return want.length === got.length && timingSafeEqual(want, got)
  }
  let matched = false
  for (const p of field.split(',')) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), name)) return false
    } else if (globMatch(p, name)) matched = true
  }
  return matched
}

/** The key type inside an SSH public key blob (its first string). */
export function blobKeyType(blob: Buffer): string {
  if (blob.length < 4) return 'unknown'
  const n = blob.readUInt32BE(0)
  return n > 0 && 4 + n <= blob.length ? blob.subarray(4, 4 + n).toString('latin1') : 'unknown'
}

/** `SHA256:` + unpadded base64 of the blob's SHA-256, as ssh-keygen -l prints it. */
export const fingerprintOf = (blob: Buffer) => `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`

export const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/
const sameFingerprint = (a: string, b: string) => a.replace(/=+$/, '') === b.replace(/=+$/, '')

export type HostKeyVerdict =
  | { kind: 'known'; file: string; line: number }
  | { kind: 'pinned' }
  | { kind: 'unknown' }
  /** Known with a key of this type, and it is another key. */
  | { kind: 'changed'; file: string; line: number; known: string }
  | { kind: 'revoked'; file: string; line: number }
  /** Known only with keys of other types: a server that suddenly offers another type is not taken on trust. */
  | { kind: 'other-types'; file: string; line: number; types: string[] }
  | { kind: 'pin-mismatch'; pinned: string }

/** The verdict on the key `blob` offered by host:port, from the lines of the policy's files. */
export function judgeHostKey(blob: Buffer, host: string, port: number, lines: KnownHostLine[], fingerprint?: string): HostKeyVerdict {
  if (fingerprint !== undefined) return sameFingerprint(fingerprintOf(blob), fingerprint) ? { kind: 'pinned' } : { kind: 'pin-mismatch', pinned: fingerprint }
  const type = blobKeyType(blob)
  const mine = lines.filter((l) => l.marker !== '@cert-authority' && hostFieldMatches(l.hosts, host, port))
  const revoked = lines.find((l) => l.marker === '@revoked' && l.key.equals(blob))
  if (revoked) return { kind: 'revoked', file: revoked.file, line: revoked.line }
  const plain = mine.filter((l) => l.marker === '')
  const same = plain.find((l) => l.key.equals(blob))
  if (same) return { kind: 'known', file: same.file, line: same.line }
  const typed = plain.find((l) => l.keyType === type)
  if (typed) return { kind: 'changed', file: typed.file, line: typed.line, known: fingerprintOf(typed.key) }
  if (plain.length > 0) return { kind: 'other-types', file: plain[0]!.file, line: plain[0]!.line, types: [...new Set(plain.map((l) => l.keyType))] }
  return { kind: 'unknown' }
}

/** The files' lines (a missing file is empty, as for ssh). */
export function readKnownHosts(files: string[], read: (f: string) => string = (f) => readFileSync(f, 'utf8')): KnownHostLine[] {
  return files.flatMap((f) => (existsSync(f) ? parseKnownHosts(read(f), f) : []))
}

/** ssh2's host key algorithms with the types known for this host first, so a server with several keys offers the one on record. */
export function preferredHostKeyAlgorithms(lines: KnownHostLine[], host: string, port: number): string[] {
  const all = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']
  const known = new Set(lines.filter((l) => l.marker === '' && hostFieldMatches(l.hosts, host, port)).map((l) => l.keyType))
  const first = all.filter((a) => known.has(a) || (a.startsWith('rsa-sha2-') && known.has('ssh-rsa')))
  return [...first, ...all.filter((a) => !first.includes(a))]
}

/** The line --accept-new-host-keys appends: plain (not hashed), so a reader sees which host it is. */
export const knownHostsEntry = (host: string, port: number, blob: Buffer) => `${lookupName(host, port)} ${blobKeyType(blob)} ${blob.toString('base64')}\n`

export interface HostKeyRefusal {
  what: string
  fix: string
}

/** The one line (what, fix) for a key that is not accepted; null when it is. */
export function refusalOf(v: HostKeyVerdict, o: { url: string; host: string; port: number; blob: Buffer; files: string[] }): HostKeyRefusal | null {
  const offered = `${o.url} offers host key ${fingerprintOf(o.blob)} (${blobKeyType(o.blob)})`
  const keyscan = `ssh-keyscan${o.port === 22 ? '' : ` -p ${o.port}`} -t ${blobKeyType(o.blob).replace(/^ssh-/, '')} ${o.host}`
  const check = `compare it with ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the host itself`
  const where = o.files.join(' or ')
  switch (v.kind) {
    case 'known':
    case 'pinned':
      return null
    case 'unknown':
      return {
        what: `${offered}, which ${where} does not list`,
        fix: `Check it (${check}), then run once with --accept-new-host-keys, or add it (${keyscan} >> ${o.files[0]}), or pin fingerprint: ${fingerprintOf(o.blob)} for this host`,
      }
    case 'changed':
      return {
        what: `${offered}, but ${v.file}:${v.line} lists ${v.known} for it: the host's key changed, or another machine answers in its place`,
        fix: `Nothing was sent. If the host was reinstalled, check the new key (${check}) and remove the old one: ssh-keygen -R ${lookupName(o.host, o.port)} -f ${v.file}`,
      }
    case 'revoked':
      return { what: `${offered}, which ${v.file}:${v.line} marks @revoked`, fix: 'Nothing was sent. Give the host a new key, or reach another host' }
    case 'other-types':
      return {
        what: `${offered}, but ${v.file}:${v.line} knows it only by ${v.types.join(', ')} keys`,
        fix: `Nothing was sent. Check the new key (${check}), then add it (${keyscan} >> ${v.file})`,
      }
    case 'pin-mismatch':
      return {
        what: `${offered}, not the pinned ${v.pinned}`,
        fix: `Nothing was sent. Check the host's key (${check}); if it really changed, pin the new fingerprint`,
      }
  }
}

/**
 * ssh2's hostVerifier for one host: true when the key is accepted (recording it when new
 * and the policy accepts new keys); on a refusal `onRefuse` gets the one line to print.
 */
export function hostKeyVerifier(o: {
  url: string
  host: string
  port: number
  policy: HostKeyPolicy
  onRefuse: (r: HostKeyRefusal) => void
}): (blob: Buffer) => boolean {
  return (blob: Buffer) => {
    const { policy } = o
    const verdict = judgeHostKey(blob, o.host, o.port, policy.fingerprint !== undefined ? [] : readKnownHosts(policy.knownHosts), policy.fingerprint)
    if (verdict.kind === 'unknown' && policy.acceptNew) {
      const file = policy.knownHosts[0]!
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      const unterminated = existsSync(file) && !/(^|\n)$/.test(readFileSync(file, 'utf8'))
      appendFileSync(file, (unterminated ? '\n' : '') + knownHostsEntry(o.host, o.port, blob), { mode: 0o600 })
      process.stderr.write(`proxybench: ${o.url}: recorded new host key ${fingerprintOf(blob)} (${blobKeyType(blob)}) in ${file} (--accept-new-host-keys)\n`)
      return true
    }
    const refusal = refusalOf(verdict, {
      url: o.url,
      host: o.host,
      port: o.port,
      blob,
      files: policy.fingerprint !== undefined ? ['the pinned fingerprint'] : policy.knownHosts,
    })
    if (refusal) o.onRefuse(refusal)
    return refusal === null
  }
}
