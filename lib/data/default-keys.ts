import type { z } from 'zod'
import { rowSchema } from './columns/derive.ts'
import { ROW_FILES } from './columns/table.ts'
import { table } from './tables.ts'

/**
 * What a proxy serves when given no certificate of its own (tls series, phase tls-default-key):
 * Traefik's generated default certificate, Caddy's internal issuer. One row per repeat in
 * `default-keys.csv`, read from the certificate the real TLS handshake presented
 * (lib/measure/default-key.ts), so the ledger compares a measured fact with the documented
 * default (docs/ledger.md "Default key types"). Rows of series tls-acme-default hold what the
 * binary's --help states instead (ACME_DEFAULT_SERIES).
 */
export const DEFAULT_KEY_SERIES = 'tls-default-key'
export const DEFAULT_KEY_VARIANT = 'default-cert'
/** The proxies with a certificate of their own to serve when given none (the others refuse to start without one). */
export const DEFAULT_KEY_PROXIES = ['traefik', 'caddy'] as const

/**
 * Traefik's ACME resolver's default key type, the one the seed article names, read from the
 * `--help` of the binary under test: a row series of its own in the same phase and file, beside
 * the fallback certificate it serves when given none (docs/series/tls.md).
 */
export const ACME_DEFAULT_SERIES = 'tls-acme-default'
/** The proxies whose `--help` prints an ACME key type default (`--certificatesresolvers.<name>.acme.keytype`). */
export const ACME_DEFAULT_PROXIES = ['traefik'] as const

/** Where a default key type is read, and the row series of default-keys.csv that holds it. */
export const KEY_SOURCES = { 'served certificate': DEFAULT_KEY_SERIES, 'acme default': ACME_DEFAULT_SERIES } as const
export type KeySource = keyof typeof KEY_SOURCES

export const defaultKeySchema = rowSchema(ROW_FILES['default-keys'])
export type DefaultKeyRow = z.infer<typeof defaultKeySchema>

export const DEFAULT_KEYS = table<DefaultKeyRow>('default-keys', ROW_FILES['default-keys'], defaultKeySchema, ['series', 'proxy', 'version', 'variant'])

export interface ServedKey {
  algorithm: string
  bits: number | null
  curve: string
  subject: string
  issuer: string
}

/** `openssl x509 -noout -text` of the served certificate → its public key and names; null when it is not a certificate. */
export function parseCertificateText(text: string): ServedKey | null {
  const algorithm = /Public Key Algorithm:\s*(\S+)/.exec(text)?.[1]
  if (!algorithm) return null
  const bits = /Public-Key:\s*\((\d+) bit\)/.exec(text)?.[1] ?? /(?:RSA|ED25519|ED448) Public-Key:\s*\((\d+) bit\)/i.exec(text)?.[1]
  const curve = /NIST CURVE:\s*(\S+)/.exec(text)?.[1] ?? /ASN1 OID:\s*(\S+)/.exec(text)?.[1] ?? ''
  const name = (field: string) => (new RegExp(`^[ \\t]*${field}:[ \\t]*(.*)$`, 'm').exec(text)?.[1] ?? '').trim()
  return { algorithm, bits: bits ? Number(bits) : null, curve, subject: name('Subject'), issuer: name('Issuer') }
}

/** A served key in the harness's key-type words: rsa2048, rsa4096, ec256 (P-256), ec384, ed25519; '' when unknown. */
export function servedKeyName(k: Pick<ServedKey, 'algorithm' | 'bits' | 'curve'>): string {
  if (/rsa/i.test(k.algorithm) && k.bits) return `rsa${k.bits}`
  if (/ecPublicKey/i.test(k.algorithm)) {
    const bits = { 'P-256': 256, prime256v1: 256, 'P-384': 384, secp384r1: 384, 'P-521': 521, secp521r1: 521 }[k.curve] ?? k.bits
    return bits ? `ec${bits}` : ''
  }
  if (/ed25519/i.test(k.algorithm)) return 'ed25519'
  return ''
}

const ACME_KEYTYPE_HELP = /--certificatesresolvers\.<name>\.acme\.keytype\s+\(Default:\s*"([^"]*)"\)/

/** `traefik --help` → the default of `--certificatesresolvers.<name>.acme.keytype` as printed ("RSA4096"); null when no line says. */
export function acmeDefaultKeyType(help: string): string | null {
  return ACME_KEYTYPE_HELP.exec(help)?.[1] || null
}

/** A published default key type ("RSA4096", "ec256", "ECDSA P-256") in the same words. */
export function keyTypeWords(published: string): string {
  const s = published.toLowerCase().replace(/[^a-z0-9]/g, '')
  if (/^ecdsap256$|^p256$/.test(s)) return 'ec256'
  if (/^ecdsap384$|^p384$/.test(s)) return 'ec384'
  return s
}
