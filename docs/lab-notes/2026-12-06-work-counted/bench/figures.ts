// The bench's figures from the rows kept here (bench/work.mjs prints the same from results/work-quick):
// node --import tsx docs/lab-notes/2026-12-06-work-counted/bench/figures.ts
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { formatWorkBench, workBenchFigures } from '../../../../lib/bench/work.ts'
import { PLANT_PROXY } from '../../../../lib/bench/year-later.ts'
import { loadRun } from '../../../../lib/data/run-data.ts'

const here = dirname(fileURLToPath(import.meta.url))
const run = (name: string) => loadRun(`${here}/${name}`)
console.log(formatWorkBench(workBenchFigures({ base: run('base'), planted: run('planted'), taxed: run('taxed'), plantProxy: PLANT_PROXY })))
