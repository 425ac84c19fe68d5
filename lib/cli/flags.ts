import { parseArgs } from 'node:util'
import { userError } from '../core/errors.ts'

/**
 * One flag of a command, written once: the parser's type, the --help lines, the default an
 * absent flag takes, and the check that turns the value into what the command uses
 * (docs/cli.md is generated from the help these tables print).
 */
export interface FlagDef {
  type: 'string' | 'boolean'
  multiple?: boolean
  short?: string
  /** The value's name in --help: `--profile NAME`. */
  arg?: string
  /** --help lines: the first beside the flag, each further one under it. */
  help?: readonly string[]
  /** What an absent flag means: the check gets it in the flag's place (never the parser: --like must see what was given). */
  default?: string
  /** The flag's own rule: its value (default applied) into the typed value, or a one-line error naming the flag and the fix. */
  check?: (value: never, ...context: never[]) => unknown
}

export type FlagTable = Readonly<Record<string, FlagDef>>

/**
 * A flag table written in a notebook or bench (.mjs): returned as given, with its literal
 * types kept (`type: 'boolean'` stays 'boolean'), so the parsed flags are typed there too.
 * Tables in .ts files write `as const` instead.
 */
export function flagTable<const T extends FlagTable>(table: T): T {
  return table
}

/** What the parser gives for one flag: a string, a boolean, or the list of a repeatable one. */
export type FlagValue<D extends FlagDef> = D['type'] extends 'boolean' ? boolean : D['multiple'] extends true ? string[] : string

/** A command's flags as parsed: each absent unless given (the type of a table, never written by hand). */
export type FlagValues<T extends FlagTable> = { [K in keyof T]?: FlagValue<T[K]> }

type CheckContext<D> = D extends { check: (value: never, ...context: infer C) => unknown } ? C : []
type Checked<D extends FlagDef> = D extends { check: (...a: never[]) => infer R } ? R : FlagValue<D> | undefined

/** One flag through its table entry: the value given, else the default, through the entry's check. */
export function checkFlag<T extends FlagTable, K extends keyof T & string>(
  table: T,
  values: FlagValues<T>,
  name: K,
  ...context: CheckContext<T[K]>
): Checked<T[K]> {
  const def = table[name]!
  const value = values[name] ?? def.default
  const check = def.check as ((value: unknown, ...context: unknown[]) => unknown) | undefined
  return (check ? check(value, ...context) : value) as Checked<T[K]>
}

/** checkFlag bound to one command's table and parsed values: `check('network', runtime)`. */
export function flagChecker<T extends FlagTable>(table: T, values: FlagValues<T>) {
  return <K extends keyof T & string>(name: K, ...context: CheckContext<T[K]>): Checked<T[K]> => checkFlag(table, values, name, ...context)
}

/**
 * The options part of a --help: `  --name ARG` then its first line at `column`, further lines
 * under it; `-h, --help` last (every command has it) unless `helpFlag` is false.
 */
export function flagHelp(table: FlagTable, o: { column?: number; helpFlag?: boolean } = {}): string {
  const column = o.column ?? 24
  const entry = (label: string, lines: readonly string[]) => [
    `${`  ${label}`.padEnd(column - 2)}  ${lines[0] ?? ''}`.trimEnd(),
    ...lines.slice(1).map((l) => `${' '.repeat(column)}${l}`),
  ]
  const rows = Object.entries(table).flatMap(([name, d]) => entry(`--${name}${d.arg ? ` ${d.arg}` : ''}`, d.help ?? []))
  return [...rows, ...(o.helpFlag === false ? [] : entry('-h, --help', ['this help']))].join('\n')
}

/**
 * Strict flag parsing for notebooks: an unknown or malformed flag is a one-line
 * error that names it and points at --help. `--help` prints `help` and exits 0.
 */
export function parseFlags<O extends FlagTable>(
  argv: string[],
  table: O,
  help: string,
  notebook: string,
  o: { positionals?: number } = {},
): FlagValues<O> & { _: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  const max = o.positionals ?? 0
  // Only what the parser knows: a default here would hide from --like which flags were given.
  const options = Object.fromEntries(
    Object.entries(table).map(([name, d]) => [name, { type: d.type, ...(d.multiple ? { multiple: true } : {}), ...(d.short ? { short: d.short } : {}) }]),
  )
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: max > 0 })
  } catch (e) {
    const msg = (e as Error).message
      .split('\n')[0]!
      .replace(/\. To specify.*$/, '')
      .replace(/\.+$/, '')
    // `--seed -1`: a value that starts with a dash reads as a flag; say how to pass it.
    const dashed = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(msg)
    if (dashed) {
      const value = argv[argv.indexOf(dashed[1]!) + 1] ?? ''
      throw userError(`${dashed[1]} ${value}`, 'a value that starts with a dash reads as a flag', `Write ${dashed[1]}=${value} if that is the value meant`)
    }
    throw userError(notebook, msg, `See: npx zx ${notebook} --help`)
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(help.trimEnd() + '\n')
    process.exit(0)
  }
  if (parsed.positionals.length > max) throw userError(notebook, `unexpected argument '${parsed.positionals[max]}'`, `See: npx zx ${notebook} --help`)
  return { ...parsed.values, _: parsed.positionals } as FlagValues<O> & { _: string[] }
}

/** zx passes the script's own arguments after the script path. */
export function notebookArgs(script: string): string[] {
  const i = process.argv.findIndex((a) => a.endsWith(script))
  return (i === -1 ? process.argv.slice(2) : process.argv.slice(i + 1)).filter((a) => a !== '--')
}
