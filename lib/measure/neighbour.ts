import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

/**
 * A real, bounded neighbour for the disturbance tests and bench/busy-machine.mjs: a python3
 * process outside the harness's process tree (it daemonises, so it is nobody's child here)
 * that spins in bursts on one core and sleeps between them, so that the core is `share`
 * busy on average. It names itself (the kernel's command name) so the culprit sampler can
 * be checked against it, stops itself after `maxS` or as soon as the process that started
 * it is gone, and `stop()` ends it at once.
 */
export interface NeighbourOptions {
  /** The core it spins on. */
  cpu: number
  /** Average busy share of that core (0.4: bursts take 40% of the time). */
  share: number
  /** Burst length range in seconds: each burst is drawn uniformly from it. */
  burstS: readonly [number, number]
  /** It ends itself after this long, whatever happens to the harness. */
  maxS: number
  /** Its command name (at most 15 characters). */
  name?: string
}

export interface Neighbour {
  pid: number
  name: string
  stop(): Promise<void>
}

export const NEIGHBOUR_NAME = 'pb-neighbour'

const SCRIPT = String.raw`
import ctypes, os, random, sys, time
cpu, share, lo, hi, max_s, name, owner = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6], int(sys.argv[7])
if os.fork() > 0:
    os._exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
ctypes.CDLL(None).prctl(15, name.encode()[:15], 0, 0, 0)
os.sched_setaffinity(0, {cpu})
sys.stdout.write(str(os.getpid()) + "\n"); sys.stdout.flush(); os.close(1); os.close(2)
end = time.monotonic() + max_s
def owner_alive():
    try:
        os.kill(owner, 0)
        return True
    except OSError:
        return False
while time.monotonic() < end and owner_alive():
    burst = random.uniform(lo, hi)
    stop = min(end, time.monotonic() + burst)
    while time.monotonic() < stop:
        pass
    time.sleep(burst * (1 - share) / share)
`

/** Starts the neighbour; resolves once it runs (its pid known). */
export function startNeighbour(o: NeighbourOptions): Promise<Neighbour> {
  const name = (o.name ?? NEIGHBOUR_NAME).slice(0, 15)
  if (!(o.share > 0 && o.share <= 1)) throw new Error(`neighbour share ${o.share}: must be in (0, 1]`)
  return new Promise((resolve, reject) => {
    const child = spawn(
      'python3',
      ['-c', SCRIPT, String(o.cpu), String(o.share), String(o.burstS[0]), String(o.burstS[1]), String(o.maxS), name, String(process.pid)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.stdout.on('end', () => {
      const pid = Number(out.trim())
      if (!Number.isInteger(pid) || pid <= 0) return reject(new Error(`neighbour did not start: ${err.trim() || out.trim() || 'no pid'}`))
      resolve({ pid, name, stop: () => stopPid(pid) })
    })
  })
}

/** Running, not a zombie (a daemon's zombie waits for whatever reaps orphans here). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

async function stopPid(pid: number): Promise<void> {
  if (!alive(pid)) return
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    return
  }
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20))
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
}
