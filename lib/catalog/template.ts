import { userError } from '../core/errors.ts'

/** The names a config template may use; see docs/catalog.md#config-templates. */
export const TEMPLATE_NAMES = ['listen_port', 'listen_host', 'backend_host', 'backend_port', 'cert', 'key', 'pem', 'threads', 'run_dir', 'admin_port'] as const

/** Names that only argv and env entries of stack.yaml may use. */
export const COMMAND_NAMES = ['binary', 'config'] as const

export type TemplateVars = Record<string, string | number>

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g

/**
 * Replaces `{{name}}` placeholders. An unknown or unset name is a UserError naming
 * `file:line`, so a typo in a template fails before any proxy starts.
 */
export function renderTemplate(text: string, vars: TemplateVars, file: string, allowed: readonly string[] = TEMPLATE_NAMES): string {
  return text
    .split('\n')
    .map((line, i) =>
      line.replace(PLACEHOLDER, (_, name: string) => {
        if (!allowed.includes(name)) {
          throw userError(`${file}:${i + 1}`, `unknown template variable {{${name}}}`, `Use one of: ${allowed.join(', ')}`)
        }
        const value = vars[name]
        if (value === undefined) {
          throw userError(
            `${file}:${i + 1}`,
            `template variable {{${name}}} has no value here`,
            'Use it only where the harness provides it (see docs/catalog.md#config-templates)',
          )
        }
        return String(value)
      }),
    )
    .join('\n')
}

/** Every placeholder name in a text, for checks that run before rendering. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!)
}
