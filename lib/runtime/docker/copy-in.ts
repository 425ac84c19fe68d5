import { lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type Docker from 'dockerode'
import { writeFileAtomic } from '../../core/atomic.ts'
import type { MountPlan } from './mounts.ts'
import { under } from './mounts.ts'
import { tarPack, tarUnpack, type TarEntry } from './tar.ts'

/*
 * No shared file system (a remote engine, or copy=1): what a container would see through
 * bind mounts is copied into it before it starts (putArchive of an archive built in
 * memory, owned by the container user, so a private key needs no copy on any disk), and
 * what a role writes in its working directory is read back (getArchive). Both go with the
 * container when it is removed.
 */

/** At most this much is copied into one container: a mount plan naming a big directory is a mistake. */
const MAX_BYTES = 64 << 20

/** The archive of everything a role's mount plan names, at the same absolute paths, for `user`. */
export function copyInEntries(plan: MountPlan, user: { uid: number; gid: number }): TarEntry[] {
  const entries: TarEntry[] = []
  let bytes = 0
  const own = { uid: user.uid, gid: user.gid }
  const add = (path: string, depth: number) => {
    const st = lstatSync(path)
    const name = path.replace(/^\/+/, '')
    if (st.isDirectory()) {
      entries.push({ name, type: 'dir', mode: 0o755, ...own })
      if (depth < 8) for (const f of readdirSync(path).sort()) add(join(path, f), depth + 1)
    } else if (st.isFile()) {
      bytes += st.size
      if (bytes > MAX_BYTES) throw new Error(`more than ${MAX_BYTES >> 20} MiB to copy into the container (at ${path})`)
      // Owned by the container user and readable by it, whatever its mode here.
      entries.push({ name, type: 'file', mode: (st.mode & 0o777) | 0o400, ...own, body: readFileSync(path) })
    }
  }
  for (const m of plan.mounts) add(m.source, 0)
  for (const c of plan.copies) {
    entries.push({ name: c.target.replace(/^\/+/, ''), type: 'file', mode: 0o400, ...own, body: readFileSync(c.source) })
  }
  return entries
}

/** Puts a role's files into its created, not yet started, container. */
export async function copyIn(container: Docker.Container, plan: MountPlan, user: { uid: number; gid: number }): Promise<void> {
  const entries = copyInEntries(plan, user)
  if (entries.length === 0) return
  await container.putArchive(tarPack(entries), { path: '/' })
}

/**
 * Reads a directory of the container back into the same path here (the proxy's access log,
 * a generator's files): regular files only, never outside `dir`.
 */
export async function copyOut(container: Docker.Container, dir: string): Promise<number> {
  const stream = (await container.getArchive({ path: dir })) as NodeJS.ReadableStream
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(c as Buffer)
  const base = dirname(resolve(dir))
  let n = 0
  for (const e of tarUnpack(Buffer.concat(chunks))) {
    const target = resolve(base, e.name)
    if (!under(target, resolve(dir)) || relative(dir, target).startsWith('..')) continue
    if (e.type === 'dir') mkdirSync(target, { recursive: true })
    else {
      mkdirSync(dirname(target), { recursive: true })
      writeFileAtomic(target, e.body!)
      n++
    }
  }
  return n
}
