// .ci/run's check of a test log (docs/ci.md#skips): node --import tsx .ci/skips.ts LOG
import { readFileSync } from 'node:fs'
import { readAllowedSkips, skipReport } from '../lib/core/ci-skips.ts'

const [file] = process.argv.slice(2)
if (!file || file === '--help' || file === '-h') {
  console.log(
    "Usage: node --import tsx .ci/skips.ts LOG\n\nPrints the runner's totals (tests, pass, fail, skipped) of a TAP test log and fails (exit 1)\nwhen a test skipped that .ci/allowed-skips does not list with its reason.",
  )
  process.exit(file ? 0 : 2)
}
const { ok, lines } = skipReport(readFileSync(file, 'utf8'), readAllowedSkips())
for (const l of lines) console.log(l)
process.exit(ok ? 0 : 1)
