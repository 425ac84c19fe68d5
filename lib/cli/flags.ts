import { parseArgs, type ParseArgsConfig } from 'node:util'
import { userError } from '../core/errors.ts'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * Strict flag parsing for notebooks: an unknown or malformed flag is a one-line
 * error that names it and points at --help. `--help` prints `help` and exits 0.
 */
export function parseFlags<O extends Options>(argv: string[], options: O, help: string, notebook: string, o: { positionals?: number } = {}) {
  let parsed
  const max = o.positionals ?? 0
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: max > 0 })
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, '').replace(/\.+$/, '')
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
  type Values = { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? string[] : string }
  return { ...parsed.values, _: parsed.positionals } as Values & { _: string[] }
}

/** zx passes the script's own arguments after the script path. */
export function notebookArgs(script: string): string[] {
  const i = process.argv.findIndex((a) => a.endsWith(script))
  return (i === -1 ? process.argv.slice(2) : process.argv.slice(i + 1)).filter((a) => a !== '--')
}
