import { join } from 'node:path'
import { PROXIES } from '../catalog/stack.ts'

/**
 * Names of the generators' raw outputs in a run's raw/ folder, built and parsed here only
 * (docs/data.md#raw-file-names):
 * raw/<series>-<proxy>-<version>-<variant>-<key type>-c<conns>[-json<bytes>][-m<streams>][-resume-<offer>][-<rate>rps|-echo|-hold]-r<repeat>.<kind>
 */
export const RAW_KINDS = [
  'wrk.txt',
  'open.json',
  'handshake.json',
  'ws-echo.json',
  'ws-hold.json',
  'tcp.json',
  'latency.json',
  'h2load.txt',
  's_client.txt',
  'h3.json',
  'h3-handshake.json',
  'slices.json',
  'work.json',
] as const
export type RawKind = (typeof RAW_KINDS)[number]

export interface RawCell {
  series: string
  proxy: string
  version: string
  variant: string
  keyType: string
  connections: number
  /** /json cells: the body size (cells of two sizes must not share a file). */
  bodyBytes?: number
  /** h2 cells: streams per connection (cells of two stream counts must not share a file). */
  streams?: number
  /** Cells of the resumption series: what the client offered to resume with. */
  resumption?: string
}

/** What distinguishes runs of one cell within a repeat: the open model's rate, the WebSocket mode. */
export type RawPart = { rate: number } | { mode: 'echo' | 'hold' } | Record<string, never>

/** A name safe for files and container names; the variant of a user config keeps only word characters. */
export const safeVariant = (variant: string): string => variant.replace(/[^\w.-]/g, '_')

export const cellStem = (c: RawCell): string =>
  `${c.series}-${c.proxy}-${c.version}-${safeVariant(c.variant)}-${c.keyType}-c${c.connections}${c.bodyBytes ? `-json${c.bodyBytes}` : ''}${c.streams ? `-m${c.streams}` : ''}${c.resumption ? `-resume-${c.resumption}` : ''}`

/** The stem of one repeat (also names its containers and processes). */
export function repeatStem(c: RawCell, repeat: number, part: RawPart = {}): string {
  const extra = 'rate' in part ? `-${part.rate}rps` : 'mode' in part ? `-${part.mode}` : ''
  return `${cellStem(c)}${extra}-r${repeat}`
}

export const rawFile = (runDir: string, stem: string, kind: RawKind): string => join(runDir, 'raw', `${stem}.${kind}`)

export interface ParsedRawName extends RawCell {
  rate: number | null
  mode: 'echo' | 'hold' | null
  repeat: number
  kind: RawKind
}

const PROXY_NAMES = [...PROXIES, 'direct']
const KEY_TYPE_NAMES = ['ec256', 'rsa2048', 'rsa4096']
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/**
 * The inverse of repeatStem: series (lower-case words and digits: h2-h1, nginx-keepalive),
 * the proxy, a version without dashes, the variant (anything, dashes included), then the
 * optional parts in the order cellStem writes them, and every kind of RAW_KINDS.
 */
const NAME = new RegExp(
  `^([a-z][a-z0-9]*(?:-[a-z0-9]+)*?)-(${PROXY_NAMES.join('|')})-([^-]+)-(.+)-(${KEY_TYPE_NAMES.join('|')})-c(\\d+)` +
    `(?:-json(\\d+))?(?:-m(\\d+))?(?:-resume-([a-z0-9]+(?:-[a-z0-9]+)*?))?(?:-(\\d+)rps|-(echo|hold))?-r(\\d+)\\.(${RAW_KINDS.map(escapeRegExp).join('|')})$`,
)

/** The cell and repeat a raw file belongs to; null for any other file. */
export function parseRawName(file: string): ParsedRawName | null {
  const m = NAME.exec(file)
  if (!m) return null
  return {
    series: m[1]!,
    proxy: m[2]!,
    version: m[3]!,
    variant: m[4]!,
    keyType: m[5]!,
    connections: Number(m[6]),
    ...(m[7] ? { bodyBytes: Number(m[7]) } : {}),
    ...(m[8] ? { streams: Number(m[8]) } : {}),
    ...(m[9] ? { resumption: m[9] } : {}),
    rate: m[10] ? Number(m[10]) : null,
    mode: (m[11] as 'echo' | 'hold' | undefined) ?? null,
    repeat: Number(m[12]),
    kind: m[13] as RawKind,
  }
}

/** The rendered config a cell used, kept in the run's configs/ folder. */
export const configCopy = (runDir: string, c: { proxy: string; version: string; variant: string }, ext: string): string =>
  join(runDir, 'configs', `${c.proxy}-${c.version}-${safeVariant(c.variant)}.${ext}`)
