/**
 * A file a step produces, as data: its path under the step's folder and how to render it.
 * Whatever computes outputs returns a list of these (lib/analysis/ stays pure); one writer,
 * `writeOutputs` in lib/core/atomic.ts, puts them on disk (temp file + rename).
 */
export interface Output {
  path: string
  /** Called once, when the file is written. */
  render: () => string | Buffer
}

/** Outputs from texts already rendered (path → text), in their order. */
export const textOutputs = (texts: ReadonlyMap<string, string>): Output[] => [...texts].map(([path, text]) => ({ path, render: () => text }))
