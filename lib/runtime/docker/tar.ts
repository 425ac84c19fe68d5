/*
 * The tar archives the engine API takes and gives (container.putArchive / getArchive),
 * built and read in memory: files for a remote host's containers never touch its disk
 * outside the container. POSIX ustar, regular files and directories only.
 */

export interface TarEntry {
  /** Relative path inside the archive (no leading slash). */
  name: string
  type: 'file' | 'dir'
  mode: number
  uid: number
  gid: number
  body?: Buffer
}

const BLOCK = 512

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0'
}

/** Splits a long name into ustar's prefix (≤ 155) and name (≤ 100) at a slash. */
function splitName(name: string): { prefix: string; name: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name }
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i)
    const rest = name.slice(i + 1)
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return { prefix, name: rest }
  }
  throw new Error(`path too long for a tar entry: ${name}`)
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(BLOCK)
  const { prefix, name } = splitName(e.type === 'dir' && !e.name.endsWith('/') ? `${e.name}/` : e.name)
  h.write(name, 0, 100)
  h.write(octal(e.mode & 0o7777, 8), 100)
  h.write(octal(e.uid, 8), 108)
  h.write(octal(e.gid, 8), 116)
  h.write(octal(size, 12), 124)
  h.write(octal(0, 12), 136) // mtime: the epoch, so one set of files gives one archive
  h.write('        ', 148) // checksum field counts as spaces
  h.write(e.type === 'dir' ? '5' : '0', 156)
  h.write('ustar\u000000', 257)
  h.write(prefix, 345, 155)
  let sum = 0
  for (const b of h) sum += b
  h.write(octal(sum, 7) + ' ', 148)
  return h
}

/** An archive of `entries`, in order (parents before their contents). */
export function tarPack(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = []
  for (const e of entries) {
    const body = e.type === 'file' ? (e.body ?? Buffer.alloc(0)) : Buffer.alloc(0)
    parts.push(header(e, body.length), body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK))
  }
  parts.push(Buffer.alloc(BLOCK * 2))
  return Buffer.concat(parts)
}

/** Files and directories of an archive (links and other types skipped); pax/GNU long names honoured. */
export function tarUnpack(buf: Buffer): TarEntry[] {
  const out: TarEntry[] = []
  let longName: string | undefined
  for (let at = 0; at + BLOCK <= buf.length; ) {
    const h = buf.subarray(at, at + BLOCK)
    if (h.every((b) => b === 0)) break
    const size = octalField(h, 124, 12)
    const type = String.fromCharCode(h[156]!)
    const body = buf.subarray(at + BLOCK, at + BLOCK + size)
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'L' || type === 'x') {
      longName = longNameIn(type, body) ?? longName
      continue
    }
    const prefix = textField(h, 345, 155)
    const name = (longName ?? (prefix ? `${prefix}/${textField(h, 0, 100)}` : textField(h, 0, 100))).replace(/\/$/, '')
    longName = undefined
    if (type === '0' || type === '\0' || type === '5') {
      out.push({
        name,
        type: type === '5' ? 'dir' : 'file',
        mode: octalField(h, 100, 8),
        uid: octalField(h, 108, 8),
        gid: octalField(h, 116, 8),
        ...(type === '5' ? {} : { body: Buffer.from(body) }),
      })
    }
  }
  return out
}

/** A header's text field, up to its first NUL. */
const textField = (h: Buffer, from: number, len: number) => h.toString('utf8', from, from + len).replace(/\0.*$/s, '')
/** A header's octal number field (blank: 0). */
const octalField = (h: Buffer, from: number, len: number) => parseInt(textField(h, from, len).trim() || '0', 8)

/** The name a GNU long-name entry ('L') or a pax header ('x', its path) gives the next entry; undefined: a pax header without one. */
function longNameIn(type: 'L' | 'x', body: Buffer): string | undefined {
  if (type === 'L') return body.toString('utf8').replace(/\0.*$/s, '')
  return /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1] || undefined
}
