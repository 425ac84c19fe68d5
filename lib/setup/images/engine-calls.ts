import type Docker from 'dockerode'

/** The engine calls every image step shares: inspect, follow a progress stream, one line of an error. */

/** The image's inspect data, or null when the engine has no such image. */
export async function imageInspect(docker: Docker, ref: string): Promise<Docker.ImageInspectInfo | null> {
  try {
    return await docker.getImage(ref).inspect()
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return null
    throw e
  }
}

/** Reads a JSON-lines progress stream of the engine; rejects on its first error. */
export function follow(docker: Docker, stream: NodeJS.ReadableStream, onEvent: (e: Record<string, any>) => void): Promise<Record<string, any>[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, out: Record<string, any>[]) => {
        if (err) return reject(err)
        const bad = out.find((e) => e.error || e.errorDetail)
        if (bad) return reject(new Error(String(bad.error ?? bad.errorDetail?.message).trim()))
        resolve(out)
      },
      onEvent,
    )
  })
}

/** The first line of an engine error, without dockerode's `(HTTP code N) … -` prefix. */
export function errorLine(e: unknown): string {
  const err = e as { json?: { message?: string }; reason?: string; message?: string }
  return String(err.json?.message ?? err.message ?? err.reason ?? e)
    .split('\n')
    .filter(Boolean)[0]!
    .replace(/^\(HTTP code \d+\) [\w ]+ - /, '')
    .trim()
}
