/**
 * An error the user can fix. Its message is one line that names the file, line or
 * flag at fault and the fix; notebooks print it without a stack trace and exit 2.
 */
export class UserError extends Error {
  override name = 'UserError'
}

/** `where: what. fix` as one line, the shape every UserError message takes. */
export function userError(where: string, what: string, fix: string): UserError {
  return new UserError(`${where}: ${what}. ${fix}`)
}
