import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { readJsonFile } from '../core/json-file.ts'
import { parseRawName, rawFile, type ParsedRawName } from './raw-files.ts'

/**
 * A cell's whole latency distribution (raw/<stem>.latency.json), HdrHistogram style: the
 * percentile rows of its percentile iteration (5 ticks per half distance to 100%), and
 * from the Go generator the histogram itself (base64 V2 log encoding, lossless).
 */
export const LATENCY_FORMAT = 'proxybench-latency-spectrum/1'

const pointSchema = z
  .object({
    /** 0..100. */
    percentile: z.number().min(0).max(100),
    value_us: z.number().nonnegative(),
    /** Samples at or below value_us; null when the generator reported levels only. */
    count: z.number().int().nonnegative().nullable(),
  })
  .strict()

export const latencySpectrumSchema = z
  .object({
    format: z.literal(LATENCY_FORMAT),
    /** `wrk`, `loadgen open`, `loadgen handshake`, `loadgen ws-echo`. */
    generator: z.string().min(1),
    /** Where each latency starts: the request written (closed model) or its scheduled send time (open model). */
    measured_from: z.enum(['sent', 'scheduled']),
    /** false: the generator read the levels only (wrk with a very wide distribution); counts are null. */
    exact: z.boolean(),
    total_count: z.number().int().nonnegative().nullable(),
    max_us: z.number().nonnegative(),
    points: z.array(pointSchema),
    /** base64 V2-compressed HdrHistogram (the Go generator); null from wrk. */
    hdr: z.string().nullable(),
    /** What a reader must know about these samples (wrk's correction). */
    note: z.string().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    for (let i = 1; i < s.points.length; i++) {
      const [a, b] = [s.points[i - 1]!, s.points[i]!]
      if (b.percentile < a.percentile || b.value_us < a.value_us || (a.count !== null && b.count !== null && b.count < a.count)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['points', i], message: 'percentile, value_us and count must not decrease' })
        return
      }
    }
  })

export type LatencySpectrum = z.infer<typeof latencySpectrumSchema>

/** What the Go generator prints in its summary (`latency_spectrum`). */
export interface LoadgenSpectrum {
  total_count: number
  max_us: number
  points: { percentile: number; value_us: number; count: number }[]
  hdr: string
}

/** The Go generator's spectrum as a file: the open model measures from the scheduled send time. */
export function loadgenSpectrum(subcommand: string, s: LoadgenSpectrum): LatencySpectrum {
  // The open models (open, h3 -rate) time each request from when it was due.
  return {
    format: LATENCY_FORMAT,
    generator: `loadgen ${subcommand}`,
    measured_from: subcommand === 'open' || subcommand.endsWith(' -rate') ? 'scheduled' : 'sent',
    exact: true,
    total_count: s.total_count,
    max_us: s.max_us,
    points: s.points,
    hdr: s.hdr,
  }
}

/** Writes one repeat's spectrum next to its raw output (validated first: a bad one is a bug, not data). */
export function writeLatencySpectrum(runDir: string, stem: string, s: LatencySpectrum): string {
  const file = rawFile(runDir, stem, 'latency.json')
  writeFileAtomic(file, JSON.stringify(latencySpectrumSchema.parse(s)) + '\n')
  return file
}

const FIX = "Delete the file (the run's CSV rows do not depend on it) or restore it from the run's raw/ output"

/** One spectrum file; a malformed one is a one-line error naming it. */
export function readLatencySpectrum(file: string): LatencySpectrum {
  const s = readJsonFile(file, latencySpectrumSchema, FIX)
  if (!s) throw userError(file, 'no such file', FIX)
  return s
}

export interface LatencySpectrumEntry {
  cell: ParsedRawName
  spectrum: LatencySpectrum
}

/** Every spectrum in a run's raw/ folder (none when raw/ is absent: older runs, baselines). */
export function readLatencySpectra(runDir: string): LatencySpectrumEntry[] {
  const raw = join(runDir, 'raw')
  if (!existsSync(raw)) return []
  return readdirSync(raw)
    .sort()
    .flatMap((f) => {
      const cell = parseRawName(f)
      return cell?.kind === 'latency.json' ? [{ cell, spectrum: readLatencySpectrum(join(raw, f)) }] : []
    })
}
