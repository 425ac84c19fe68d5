/**
 * The two-part calibrated unit (docs/method/calibration.md#model): a row's CPU in
 * reference microseconds, what the same work would cost where one getppid system call
 * costs REFERENCE_UNITS.syscall_us and the compute loop REFERENCE_UNITS.compute_us.
 * The counted system calls are priced at this run's syscall unit and re-priced at the
 * reference's; the rest of the kernel time and all user time scale with the compute unit.
 * A kernel that taxes every system call moves the first part only (the tax is in both the
 * counted calls and the unit); a faster CPU moves both units and the rest alike.
 */
export const TWO_PART_UNIT = 'two-part-ref-us-v1'

/** The reference machine's units, fixed before any data was read against them: this machine kind (2 cores, kernel 6.18, 2026-12-01). */
export const REFERENCE_UNITS = { syscall_us: 0.2, compute_us: 2650 } as const

export interface TwoPartInput {
  /** CPU µs per unit (request, handshake, …) split into user and system. */
  userUs: number | null | undefined
  sysUs: number | null | undefined
  /** System calls per unit (kernel counts). */
  syscalls: number | null | undefined
}

/** The figure in TWO_PART_UNIT, or null where a part or a unit is missing. Kernel time below the counted calls' price reads as zero rest. */
export function twoPartCost(x: TwoPartInput, units: { syscall_us: number | null; compute_us: number | null } | null | undefined): number | null {
  if (!units?.syscall_us || !units.compute_us) return null
  const { userUs, sysUs, syscalls } = x
  if (userUs == null || sysUs == null || syscalls == null) return null
  const entry = syscalls * units.syscall_us
  const rest = Math.max(0, sysUs - entry)
  const scale = REFERENCE_UNITS.compute_us / units.compute_us
  return syscalls * REFERENCE_UNITS.syscall_us + (rest + userUs) * scale
}
