import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { appendCsvRows, readCsv } from './csv.ts'
import { MEASUREMENT_COLUMNS, measurementSchema, type Measurement } from './schema.ts'

export const MEASUREMENTS_FILE = 'measurements.csv'

const NUMERIC = MEASUREMENT_COLUMNS.filter((c) => !['run_id', 'series', 'proxy', 'version', 'variant', 'key_type', 'model', 'status', 'reason', 'runtime', 'started_at'].includes(c))

export function readMeasurements(runDir: string): Measurement[] {
  const file = join(runDir, MEASUREMENTS_FILE)
  return existsSync(file) ? readCsv(file, measurementSchema, NUMERIC) : []
}

export function appendMeasurement(runDir: string, row: Measurement): void {
  appendCsvRows(join(runDir, MEASUREMENTS_FILE), MEASUREMENT_COLUMNS, [measurementSchema.parse(row)])
}

/** Identifies a cell across repeats: what --resume compares. */
export function cellKey(r: Pick<Measurement, 'series' | 'proxy' | 'version' | 'variant' | 'key_type' | 'model' | 'connections'>): string {
  return [r.series, r.proxy, r.version, r.variant, r.key_type, r.model, r.connections].join('|')
}
