/** One row of the doctor table; `--json` prints an array of these. */
export interface ComponentRow {
  component: string
  version: string
  source: string
  path: string
  sha256: string
  /** ok: present as pinned; installed/built: done by this run; changed: present but not as pinned; missing/failed: unusable. */
  status: 'ok' | 'installed' | 'built' | 'changed' | 'missing' | 'failed'
  /** One line naming what is wrong and the fix, when status is not ok. */
  note?: string
  /** Proxy versions: whether the binary speaks HTTP/3, yes or no with the reason (lib/setup/h3-support.ts). */
  h3?: string
}

export function usable(row: ComponentRow): boolean {
  return row.status !== 'missing' && row.status !== 'failed'
}
