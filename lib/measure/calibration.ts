import { exec, lastLine } from '../core/exec.ts'
import type { Logger } from '../core/log.ts'
import type { Calibration } from '../data/schema.ts'
import { goBinaryPath } from '../setup/gobuild.ts'

/**
 * The run's calibration: references measured on the proxy's cpuset, on this kernel, in
 * this run, so that proxy figures can be divided by them (lib/analysis/calibrated.ts).
 * Two machines of one kind moved proxies ~2.2x and `openssl speed` only 10-20%: the
 * loopback round trip is the system-call reference, the signs the crypto one.
 * Runs natively under taskset for either runtime: the kernel is the host's in both.
 */
export interface CalibrationOptions {
  cpuset: string
  log: Logger
  /** Measured window of the ping-pong (after 1 s of warm-up). */
  rttSeconds?: number
  /** openssl speed -seconds (per algorithm and operation: sign and verify each). */
  cryptoSeconds?: number
  /** argv before each reference program (the system-call tax's launcher, as the roles run); empty: none. */
  launcher?: readonly string[]
}

export interface RttFigures {
  cpu_us_per_rt: number
  wall_us_per_rt: number
  round_trips: number
}

/** loadgen rtt's JSON line. */
export function parseRtt(stdout: string): RttFigures {
  const j = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Partial<RttFigures>
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0
  if (!ok(j.cpu_us_per_rt) || !ok(j.wall_us_per_rt) || !ok(j.round_trips)) throw new Error(`loadgen rtt: unexpected output ${stdout.trim().slice(0, 200)}`)
  return { cpu_us_per_rt: j.cpu_us_per_rt, wall_us_per_rt: j.wall_us_per_rt, round_trips: j.round_trips }
}

/**
 * µs per sign from `openssl speed` output, machine-readable (-mr: `+F2:i:4096:sign/s:verify/s`
 * for RSA, `+F4:i:256:…` for ECDSA) or the table (`rsa 4096 bits … 306.0 20286.3`,
 * ` 256 bits ecdsa (nistp256) … 68277.0 23263.3`). openssl counts CPU seconds, like the proxy figures.
 */
export function parseOpensslSpeed(text: string): { ecdsa_p256_sign_us: number | null; rsa4096_sign_us: number | null } {
  const perSign = (signsPerS: string | undefined) => {
    const v = Number(signsPerS)
    return Number.isFinite(v) && v > 0 ? 1e6 / v : null
  }
  const rsa = /^\+F2:\d+:4096:([\d.]+):/m.exec(text)?.[1] ?? /^rsa\s+4096 bits\s+\S+s\s+\S+s\s+([\d.]+)\s/m.exec(text)?.[1]
  const ec = /^\+F4:\d+:256:([\d.]+):/m.exec(text)?.[1] ?? /^\s*256 bits ecdsa \(nistp256\)\s+\S+s\s+\S+s\s+([\d.]+)\s/m.exec(text)?.[1]
  return { ecdsa_p256_sign_us: perSign(ec), rsa4096_sign_us: perSign(rsa) }
}

/** One line for the run's log. */
export function formatCalibration(c: Calibration): string {
  const f = (v: number | null, d = 2) => (v === null ? 'n/a' : v.toFixed(d))
  return `calibration on cpuset ${c.cpuset}: loopback round trip ${f(c.loopback_rtt_us)} µs CPU (${f(c.loopback_rtt_wall_us)} µs wall), ECDSA P-256 sign ${f(c.ecdsa_p256_sign_us)} µs, RSA-4096 sign ${f(c.rsa4096_sign_us, 0)} µs`
}

/** ~15 s. Null when the ping-pong failed (said as a warning); a failed openssl leaves its figures null. */
export async function measureCalibration(o: CalibrationOptions): Promise<Calibration | null> {
  const rttS = o.rttSeconds ?? 5
  const cryptoS = o.cryptoSeconds ?? 2
  const pin = (argv: string[]) => ['-c', o.cpuset, ...(o.launcher ?? []), ...argv]
  o.log.progress(`calibration: loopback TCP ping-pong on cpuset ${o.cpuset} (${rttS + 1} s)…`)
  const rtt = await exec('taskset', pin([goBinaryPath('loadgen'), 'rtt', '-d', `${rttS}s`, '-warmup', '1s', '-size', '1']), { timeoutMs: (rttS + 30) * 1000 })
  let figures: RttFigures
  try {
    if (rtt.code !== 0) throw new Error(`loadgen rtt exited ${rtt.code}: ${lastLine(rtt.stderr)}`)
    figures = parseRtt(rtt.stdout)
  } catch (e) {
    o.log.warn(`calibration skipped: ${(e as Error).message}`)
    return null
  }
  o.log.progress(`calibration: openssl speed ecdsap256 rsa4096 on cpuset ${o.cpuset} (${cryptoS * 4} s)…`)
  const speed = await exec('taskset', pin(['openssl', 'speed', '-mr', '-seconds', String(cryptoS), 'ecdsap256', 'rsa4096']), {
    timeoutMs: (cryptoS * 4 + 60) * 1000,
  })
  const signs = parseOpensslSpeed(speed.stdout + speed.stderr)
  if (speed.code !== 0 || signs.ecdsa_p256_sign_us === null || signs.rsa4096_sign_us === null) {
    o.log.warn(
      `calibration: openssl speed gave no figure for ${[signs.ecdsa_p256_sign_us === null ? 'ECDSA P-256' : '', signs.rsa4096_sign_us === null ? 'RSA-4096' : ''].filter(Boolean).join(', ') || 'a sign'} (exit ${speed.code}: ${lastLine(speed.stderr)})`,
    )
  }
  return {
    loopback_rtt_us: figures.cpu_us_per_rt,
    loopback_rtt_wall_us: figures.wall_us_per_rt,
    ...signs,
    measured_at: new Date().toISOString(),
    cpuset: o.cpuset,
  }
}
