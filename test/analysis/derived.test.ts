import assert from 'node:assert/strict'
import { test } from 'node:test'
import { derivedRatios } from '../../lib/analysis/derived.ts'
import { aggregate, summaryCsvs } from '../../lib/analysis/summary.ts'
import { cpuRepeats, handshake, measurement } from '../fixtures/rows.ts'

const hs = (proxy: string, key_type: string, cpu: number) => handshake({ proxy, key_type, proxy_cpu_us_per_handshake: cpu })

test('derived ratios: pool effect, spread, key types, proxy vs direct', async () => {
  const m = [
    ...cpuRepeats({ series: 'pool-added', variant: 'pool-added' }, [20]),
    ...cpuRepeats({ series: 'pool-removed', variant: 'pool-removed' }, [60]),
    ...cpuRepeats({ series: 'pool-removed', variant: 'pool-removed', proxy: 'envoy', version: '1.40.0' }, [90]),
    ...cpuRepeats({ series: 'same', variant: 'article', proxy: 'nginx', version: '1.31.3' }, [40]),
    ...cpuRepeats({ series: 'pool-added', variant: 'pool-added', proxy: 'nginx', version: '1.31.3' }, [20]),
    measurement({ series: 'direct', proxy: 'direct', variant: 'direct', proxy_cpu_us_per_req: null, backend_cpu_us_per_req: 8, rps: 4000 }),
  ]
  const a = await aggregate({ measurements: m, handshakes: [hs('haproxy', 'ec256', 500), hs('haproxy', 'rsa4096', 5000)], websocket: [] })
  const by = (name: string, proxy: string) => a.ratios.find((r) => r.name === name && r.proxy === proxy)
  assert.equal(by('pool-removed / pool-added', 'haproxy')!.value, 3)
  assert.equal(by('pool-removed spread (max / min)', 'all')!.value, 1.5)
  assert.equal(by('rsa4096 / ec256 handshake', 'haproxy')!.value, 10)
  assert.equal(by('proxy CPU / backend CPU (direct)', 'haproxy'), undefined, 'no article cell: no tax ratio')
  assert.equal(by('proxy CPU / backend CPU (direct)', 'nginx')!.value, 5)
  assert.deepEqual([by('rps / direct rps', 'nginx')!.value, by('rps / direct rps', 'nginx')!.comparable], [0.25, false])
  assert.equal(by('article / pool-added', 'nginx')!.value, 2)
  assert.deepEqual(by('article / pool-added', 'haproxy')!.warnings, ['article: not measured'])
  assert.equal(by('article / pool-added', 'haproxy')!.value, null)
  const csv = summaryCsvs(a)
  assert.deepEqual([...csv.keys()], ['summary/measurements.csv', 'summary/handshakes.csv', 'summary/ratios.csv'])
  assert.match(
    csv.get('summary/measurements.csv')!.split('\n')[0]!,
    /^series,proxy,version,variant,key_type,model,connections,target_rps,path,body_bytes,streams,rows,valid,invalid,failed,status,proxy_cpu_us_per_req_median,/,
  )
  assert.equal(derivedRatios([], []).length, 0)
})
