import { constants } from 'node:os'
import { Writable } from 'node:stream'

/* A container's output on its way to the role's log file, and how its end is reported. */

/** Printed on stdout by the generator wrapper; never reaches the log file. */
export const EXIT_MARK = '__PROXYBENCH_EXIT__'

/** The signal behind an exit code above 128 (137: SIGKILL), as native reports it. */
export function signalName(code: number): string | null {
  if (code <= 128 || code > 128 + 64) return null
  return Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0] ?? null
}

/** The first line of an engine error (its JSON message when there is one). */
export function errorLine(e: unknown): string {
  const err = e as { json?: { message?: string }; message?: string }
  return String(err.json?.message ?? err.message ?? e).split('\n')[0]!
}

/**
 * Passes stdout through, except the wrapper's exit line, which it reports once every
 * byte before it has been written to the log file.
 */
export function exitMarkFilter(out: Writable, onExit: (code: number) => void): Writable {
  let pending = ''
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8')
      const at = pending.indexOf(EXIT_MARK)
      const m = at === -1 ? null : /^\S+ (\d+)\n/.exec(pending.slice(at))
      if (m) {
        const before = pending.slice(0, at)
        pending = ''
        // Writable hands the next chunk over only after done(): all earlier bytes are written.
        if (!before) return (onExit(Number(m[1])), done())
        return void out.write(before, () => (onExit(Number(m[1])), done()))
      }
      // Hold back a possible beginning of the mark; pass the rest through.
      const cut = pending.lastIndexOf('\n') + 1
      const ready = pending.slice(0, cut)
      pending = pending.slice(cut)
      if (!ready) return done()
      out.write(ready, () => done())
    },
    final(done) {
      if (pending) out.write(pending, () => done())
      else done()
    },
  })
}
