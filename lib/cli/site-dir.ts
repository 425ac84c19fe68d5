import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { userError } from '../core/errors.ts'

/**
 * `--site`: a directory (created when absent), never an existing file. Its own file so
 * that the report's notebooks parse it without loading the run's options (images, runtimes).
 */
export function parseSiteDir(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (existsSync(value) && !statSync(value).isDirectory())
    throw userError('--site', `${value} is a file`, 'Give a directory for the site (it is created when absent)')
  return resolve(value)
}
