import type Docker from 'dockerode'
import { imageFor, type ImageRecord } from '../../setup/images/records.ts'
import type { RoleSpec } from '../types.ts'

/**
 * The Docker runtime's images: which image a role runs in (spec.image, else the record
 * notebooks/02-stacks.mjs made for argv[0]), an image this engine lacks sent from another
 * engine (docker save → load), and what was used, for the manifest.
 */
export class RuntimeImages {
  private readonly used = new Map<string, { image: string; record?: ImageRecord }>()
  /** Images known to be on this engine; those sent here, with their id on it. */
  private readonly present = new Set<string>()
  readonly loaded = new Map<string, { image: string; id: string; bytes: number }>()

  constructor(
    private readonly docker: Docker,
    private readonly records: ImageRecord[],
    private readonly engineName: string,
    private readonly imageSource?: Docker,
  ) {}

  /** The image a role would run in, and its argv and env inside it. */
  resolve(spec: RoleSpec): { image: string; argv: string[]; env: Record<string, string> } {
    if (spec.image) {
      this.used.set(spec.image, { image: spec.image })
      return { image: spec.image, argv: spec.argv, env: spec.env ?? {} }
    }
    const rec = imageFor(this.records, spec.argv[0]!)
    if (!rec) throw new Error(`no Docker image for ${spec.argv[0]} (role ${spec.name}); run: npx zx notebooks/02-stacks.mjs`)
    this.used.set(rec.id || rec.image, { image: rec.image, record: rec })
    const env = Object.fromEntries(Object.entries(spec.env ?? {}).filter(([k]) => !rec.drop_env.includes(k)))
    // An official image or a suite's root (debian:<suite>) keeps the proxy's binary at its own path.
    const argv = spec.argv[0] === rec.binaries[0] && rec.image_binary !== spec.argv[0] ? [rec.image_binary, ...spec.argv.slice(1)] : spec.argv
    return { image: rec.id || rec.image, argv, env }
  }

  /**
   * An image this engine lacks is sent from imageSource's: `docker save` streamed into
   * `docker load`, progress on stderr. Without an imageSource the create fails as before.
   */
  async ensure(ref: string): Promise<void> {
    if (!this.imageSource || this.present.has(ref)) return
    const has = await this.docker
      .getImage(ref)
      .inspect()
      .then(
        () => true,
        (e: { statusCode?: number }) => {
          if (e.statusCode === 404) return false
          throw e
        },
      )
    if (!has) await this.send(ref)
    this.present.add(ref)
  }

  private async send(ref: string): Promise<void> {
    const src = this.imageSource!
    // Saved by its tag when it has one: the image arrives tagged, with the same id.
    const info = await src.getImage(ref).inspect()
    const name = info.RepoTags?.find((t) => t !== '<none>:<none>') ?? ref
    const say = (s: string) => process.stderr.write(`proxybench: ${this.engineName}: ${s}\n`)
    say(`lacks ${name} (${(info.Size / 2 ** 20).toFixed(0)} MiB): sending it from this machine's engine (docker save → load)`)
    const saved = (await src.getImage(name).get()) as NodeJS.ReadableStream
    let bytes = 0
    let shown = Date.now()
    saved.on('data', (c: Buffer) => {
      bytes += c.length
      if (Date.now() - shown > 5000) {
        shown = Date.now()
        say(`${name}: ${(bytes / 2 ** 20).toFixed(0)} MiB sent`)
      }
    })
    const answer = (await this.docker.loadImage(saved)) as NodeJS.ReadableStream
    let text = ''
    for await (const c of answer) text += String(c)
    const failed = /"error(?:Detail)?":\s*\{?"?(?:message"?:\s*)?"([^"]+)/.exec(text)
    if (failed) throw new Error(`${this.engineName}: loading ${name} failed: ${failed[1]}`)
    const id = (await this.docker.getImage(name).inspect()).Id
    this.loaded.set(ref, { image: name, id, bytes })
    say(`${name}: loaded (${(bytes / 2 ** 20).toFixed(0)} MiB, id ${id.slice(0, 19)})`)
  }

  /** Every image a container was started from, for the manifest. */
  usedImages(): { component: string; version: string; image: string; id: string; digest: string | null; mode: string }[] {
    return [...this.used.entries()].map(([id, u]) => ({
      component: u.record?.component ?? '-',
      version: u.record?.version ?? '-',
      image: u.image,
      id,
      digest: u.record?.digest ?? null,
      mode: u.record?.mode ?? 'given',
    }))
  }
}
