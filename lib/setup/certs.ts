import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import { certsDir } from '../core/paths.ts'
import { exec, lastLine } from '../core/exec.ts'
import { sha256Text } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'

export const KEY_TYPES = ['ec256', 'rsa2048', 'rsa4096'] as const
export type KeyType = (typeof KEY_TYPES)[number]

const KEYGEN: Record<KeyType, string[]> = {
  ec256: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  rsa2048: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  rsa4096: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096'],
}

/** The files every proxy uses for one key type. */
export interface CertFiles {
  cert: string
  key: string
  /** HAProxy's combined certificate + key. */
  pem: string
}

export interface CertSet {
  dir: string
  ca: string
  created: string
  caSha256: string
  files: Record<KeyType, CertFiles>
}

export function certFiles(dir: string, kt: KeyType): CertFiles {
  return { cert: join(dir, `${kt}.crt`), key: join(dir, `${kt}.key`), pem: join(dir, `${kt}.pem`) }
}

const VALID_DAYS = 90
const SAN = 'subjectAltName=DNS:localhost,IP:127.0.0.1'

async function openssl(args: string[], cwd: string): Promise<void> {
  const r = await exec('openssl', args, { cwd })
  if (r.code === 127) throw userError('openssl', 'not found on PATH', 'Run: npx zx notebooks/00-setup.mjs (installs Debian openssl)')
  if (r.code !== 0) throw new Error(`openssl ${args[0]} failed: ${lastLine(r.stderr)}`)
}

/** The certificate set in `dir` when complete and valid for another day (ensureCerts then writes nothing). */
export async function reusable(dir: string): Promise<CertSet | undefined> {
  const manifest = join(dir, 'certs.json')
  if (!existsSync(manifest)) return undefined
  let set: CertSet
  try {
    set = JSON.parse(readFileSync(manifest, 'utf8')) as CertSet
    if (typeof set !== 'object' || set === null || Array.isArray(set)) throw new Error('not an object')
  } catch (e) {
    // Never regenerated silently: the keys beside it may be what a running proxy uses.
    throw userError(
      manifest,
      `not a certificate manifest (${(e as Error).message.split('\n')[0]})`,
      `Make a new set: npx zx notebooks/01-certs.mjs --force${dir === certsDir ? '' : ` --dir ${dir}`}`,
    )
  }
  const all = KEY_TYPES.flatMap((kt) => Object.values(certFiles(dir, kt)))
  if (!all.every(existsSync) || !existsSync(join(dir, 'ca.crt'))) return undefined
  const r = await exec('openssl', ['x509', '-checkend', '86400', '-noout', '-in', join(dir, 'ca.crt')])
  return r.code === 0
    ? { ...set, dir, ca: join(dir, 'ca.crt'), files: Object.fromEntries(KEY_TYPES.map((kt) => [kt, certFiles(dir, kt)])) as CertSet['files'] }
    : undefined
}

/**
 * A fresh CA and one leaf per key type (SANs localhost and 127.0.0.1), generated in a
 * temp dir and moved into place only when all succeeded. Keys are mode 0600 and never
 * leave `dir`.
 */
export async function ensureCerts(dir: string, opts: { force: boolean; log: Logger }): Promise<CertSet & { reused: boolean }> {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw userError(dir, 'is a file', 'Give a directory for the certificates (it is created when absent)')
  if (!opts.force) {
    const set = await reusable(dir)
    if (set) return { ...set, reused: true }
  }
  mkdirSync(dir, { recursive: true })
  const tmp = join(dir, `.tmp-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { mode: 0o700 })
  try {
    opts.log.progress('certs: CA (EC P-256)')
    await openssl(['genpkey', ...KEYGEN.ec256, '-out', 'ca.key'], tmp)
    await openssl(
      [
        'req',
        '-x509',
        '-new',
        '-key',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        String(VALID_DAYS),
        '-subj',
        '/CN=proxybench run CA',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      tmp,
    )
    writeFileSync(join(tmp, 'leaf.ext'), `${SAN}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`)
    for (const kt of KEY_TYPES) {
      opts.log.progress(`certs: leaf ${kt}`)
      await openssl(['genpkey', ...KEYGEN[kt], '-out', `${kt}.key`], tmp)
      await openssl(['req', '-new', '-key', `${kt}.key`, '-subj', '/CN=localhost', '-out', `${kt}.csr`], tmp)
      await openssl(
        [
          'x509',
          '-req',
          '-in',
          `${kt}.csr`,
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-set_serial',
          `0x${sha256Text(kt + Date.now()).slice(0, 16)}`,
          '-days',
          String(VALID_DAYS),
          '-extfile',
          'leaf.ext',
          '-out',
          `${kt}.crt`,
        ],
        tmp,
      )
      writeFileSync(join(tmp, `${kt}.pem`), readFileSync(join(tmp, `${kt}.crt`), 'utf8') + readFileSync(join(tmp, `${kt}.key`), 'utf8'))
      rmSync(join(tmp, `${kt}.csr`))
    }
    rmSync(join(tmp, 'leaf.ext'))
    const created = new Date().toISOString()
    const caSha256 = sha256Text(readFileSync(join(tmp, 'ca.crt')))
    // Proxies run as other users in Docker later; keys stay owner-only regardless.
    for (const kt of KEY_TYPES) for (const f of [`${kt}.key`, `${kt}.pem`]) chmodSync(join(tmp, f), 0o600)
    chmodSync(join(tmp, 'ca.key'), 0o600)
    writeFileSync(join(tmp, 'certs.json'), JSON.stringify({ created, caSha256 }, null, 2) + '\n')
    for (const f of ['ca.key', 'ca.crt', ...KEY_TYPES.flatMap((kt) => [`${kt}.key`, `${kt}.crt`, `${kt}.pem`]), 'certs.json'])
      renameSync(join(tmp, f), join(dir, f))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  const set = await reusable(dir)
  if (!set) throw new Error(`certificates in ${dir} were generated but do not verify`)
  return { ...set, reused: false }
}
