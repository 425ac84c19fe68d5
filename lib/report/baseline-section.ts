/** Kept for lib/report/build.ts until it imports the type from sections/baseline.ts. */
export type { BaselineComparison } from './sections/baseline.ts'
