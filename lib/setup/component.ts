/** One row of the doctor table; `--json` prints an array of these. */
export interface ComponentRow {
  component: string
  version: string
  source: string
  path: string
  sha256: string
  /**
   * ok: present as pinned; installed/built: done by this run; substituted: another build of
   * the pinned version (lib/setup/builds.ts); restored: the pinned build from the archive;
   * missing/failed: unusable, a run stops; not runnable: gone from its source, a run goes on without it.
   */
  status: 'ok' | 'installed' | 'built' | 'substituted' | 'restored' | 'missing' | 'failed' | 'not runnable'
  /** A substituted proxy version: the pinned build and its sha256 (`sha256` above is the measured build's). */
  pinned?: { build: string; sha256: string }
  /** The build measured when it is not the pinned one (a Debian version). */
  build?: string
  /** One line naming what is wrong and the fix, when status is not ok. */
  note?: string
  /** Proxy versions: whether the binary speaks HTTP/3, yes or no with the reason (lib/setup/h3-support.ts). */
  h3?: string
}

export function usable(row: ComponentRow): boolean {
  return row.status !== 'missing' && row.status !== 'failed' && row.status !== 'not runnable'
}
