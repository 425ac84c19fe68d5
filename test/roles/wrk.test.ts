import assert from 'node:assert/strict'
import { test } from 'node:test'
import { latencySpectrumSchema } from '../../lib/data/latency.ts'
import { parseWrkOutput, parseWrkSpectrum } from '../../lib/roles/wrk.ts'

// wrk 4.1.0's output with stacks/wrk/report.lua against the backend (the spectrum cut to a few rows).
const OUTPUT = `Running 2s test @ http://127.0.0.1:18998/
  1 threads and 50 connections
  135925 requests in 2.00s, 14.65MB read
Requests/sec:  67909.39
PROXYBENCH_JSON {"requests":135925,"duration_us":2001564,"bytes":15359525,"errors":{"connect":0,"read":0,"write":0,"status":0,"timeout":0},"latency_us":{"p50":523,"p90":669,"p99":1634,"p999":7015,"max":8996,"mean":554.48}}
PROXYBENCH_SPECTRUM {"exact":true,"total_count":137393,"max_us":8996,"points":[{"percentile":0,"value_us":26,"count":1},{"percentile":10,"value_us":385,"count":13964},{"percentile":99.9993133545,"value_us":8996,"count":137393},{"percentile":100,"value_us":8996,"count":137393}]}
`

test("wrk's spectrum line becomes a spectrum file's content: from the send, no HDR log, wrk's correction said", () => {
  const s = parseWrkSpectrum(OUTPUT)!
  assert.deepEqual(latencySpectrumSchema.parse(s), s)
  assert.equal(s.generator, 'wrk')
  assert.equal(s.measured_from, 'sent')
  assert.equal(s.hdr, null)
  assert.equal(s.total_count, 137393)
  assert.match(s.note!, /stats_correct/)
  // The summary line is read as before.
  assert.equal(parseWrkOutput(OUTPUT)!.latency_us.max, s.max_us)
})

test("no spectrum when wrk printed none, or only the script's own error", () => {
  assert.equal(parseWrkSpectrum(OUTPUT.replace(/PROXYBENCH_SPECTRUM.*\n/, '')), null)
  assert.equal(parseWrkSpectrum('PROXYBENCH_SPECTRUM {"error":"report.lua:41: table overflow"}\n'), null)
})

test('levels only (a very wide distribution): counts are null and the file says so', () => {
  const s = parseWrkSpectrum(
    'PROXYBENCH_SPECTRUM {"exact":false,"total_count":null,"max_us":50569,"points":[{"percentile":0,"value_us":17,"count":null},{"percentile":100,"value_us":50569,"count":null}]}\n',
  )!
  assert.equal(s.exact, false)
  assert.deepEqual(latencySpectrumSchema.parse(s), s)
})
