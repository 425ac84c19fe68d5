import { userError } from './errors.ts'

/** A comma-separated value into its names, trimmed, blanks left out. */
export const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/**
 * A comma-separated flag value into its names, each one of `valid` (--proxies, --series,
 * --variants, --key-types): none, or one not valid, is a one-line error naming the flag and the valid ones.
 */
export function parseNames(flag: string, value: string, valid: readonly string[], noun: string): string[] {
  const names = commaList(value)
  const fix = `Use a comma-separated list of: ${valid.join(', ')}`
  if (names.length === 0) throw userError(flag, `"${value}" names no ${noun}`, `${fix} (or leave ${flag} out for all)`)
  for (const n of names) if (!valid.includes(n)) throw userError(flag, `unknown ${noun} "${n}"`, fix)
  return names
}
