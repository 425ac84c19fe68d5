import assert from 'node:assert/strict'
import { test } from 'node:test'
import { imageTag } from '../../../lib/setup/images/names.ts'
import { imageFor, mergeRecords, type ImageRecord } from '../../../lib/setup/images/records.ts'

const rec = (component: string, version: string, binaries: string[], id = 'sha256:1'): ImageRecord => ({
  component,
  version,
  mode: 'offline',
  image: imageTag(component, version),
  id,
  digest: null,
  binaries,
  image_binary: binaries[0]!,
  drop_env: [],
  input: 'x',
  seconds: null,
})

test('image records: newest per component and version; looked up by argv[0]', () => {
  const merged = mergeRecords(
    [rec('nginx', '1.22.1', ['/usr/sbin/nginx'], 'sha256:old'), rec('caddy', '2.6.2', ['/usr/bin/caddy'])],
    [rec('nginx', '1.22.1', ['/usr/sbin/nginx'], 'sha256:new')],
  )
  assert.equal(merged.length, 2)
  assert.equal(imageFor(merged, '/usr/sbin/nginx')!.id, 'sha256:new')
  assert.equal(imageFor([rec('loadgen', 'abc', ['/c/loadgen', 'wrk'])], 'wrk')!.component, 'loadgen')
  assert.equal(imageFor(merged, '/usr/sbin/haproxy'), undefined)
  // A new generator build (new source hash) takes wrk over; the old record goes.
  const gens = mergeRecords(
    [rec('loadgen', 'old', ['/c/loadgen-old/loadgen', 'wrk'], 'sha256:old')],
    [rec('loadgen', 'new', ['/c/loadgen-new/loadgen', 'wrk'], 'sha256:new')],
  )
  assert.deepEqual(
    gens.map((r) => r.version),
    ['new'],
  )
  assert.equal(imageFor(gens, 'wrk')!.id, 'sha256:new')
})
