import type { Measurement } from './schema.ts'
import { appendRow, MEASUREMENTS, readTable } from './tables.ts'

export const readMeasurements = (runDir: string): Measurement[] => readTable(runDir, MEASUREMENTS)
export const appendMeasurement = (runDir: string, row: Measurement): void => appendRow(runDir, MEASUREMENTS, row)
