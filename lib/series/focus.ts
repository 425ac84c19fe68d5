import { basename } from 'node:path'
import { loadStack, type ProxyName } from '../catalog/stack.ts'
import { parseNames } from '../core/names.ts'
import type { CellPlan } from '../measure/cell.ts'
import { KEY_TYPES, type KeyType } from '../setup/certs.ts'

/**
 * A focused run (`--variants`, `--key-types`): only the planned cells with those variants
 * and key types are measured, in every series. The `direct` row always stays: it is the
 * floor of the pooling table.
 */
export interface Focus {
  variants?: readonly string[]
  keyTypes?: readonly KeyType[]
}

/** The one place cells are filtered (lib/series/tasks.ts, for every phase of every series). */
export function focusCells<C extends Pick<CellPlan, 'variant' | 'keyType' | 'proxy'>>(cells: readonly C[], focus: Focus | undefined): C[] {
  if (!focus) return [...cells]
  return cells.filter(
    (c) => c.proxy === 'direct' || ((!focus.variants || focus.variants.includes(c.variant)) && (!focus.keyTypes || focus.keyTypes.includes(c.keyType))),
  )
}

/** Variant names a run can plan: the selected proxies' catalog variants and `custom:<file>` of each --config. */
export function knownVariants(proxies: readonly ProxyName[], customFiles: readonly string[]): string[] {
  const names = new Set(proxies.flatMap((p) => Object.keys(loadStack(p).variants)))
  return [...[...names].sort(), ...customFiles.map((f) => `custom:${basename(f)}`)]
}

/** `--variants` and `--key-types` into a focus; unknown names are one-line errors listing the valid ones. */
export function parseFocus(f: { variants?: string; keyTypes?: string }, proxies: readonly ProxyName[], customFiles: readonly string[]): Focus | undefined {
  if (f.variants === undefined && f.keyTypes === undefined) return undefined
  return {
    ...(f.variants !== undefined ? { variants: parseNames('--variants', f.variants, knownVariants(proxies, customFiles), 'variant') } : {}),
    ...(f.keyTypes !== undefined ? { keyTypes: parseNames('--key-types', f.keyTypes, KEY_TYPES, 'key type') as KeyType[] } : {}),
  }
}
