import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { catalogCellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { cpuFeatures, measureHandshakeWork, measureRequestWork, workSetup } from '../../lib/measure/work.ts'
import { countedEdits } from '../../lib/roles/proxy.ts'
import { loadStack } from '../../lib/catalog/stack.ts'
import type { Runtime } from '../../lib/runtime/types.ts'

// A runtime whose roles are on other hosts stands in for --hosts: nothing is started, the row says why.
const severalHosts = { kind: 'docker', generatorElsewhere: true } as Runtime
const ctx = { runtime: severalHosts, runId: 't', runDir: '/nonexistent', profile: PROFILES.quick! } as unknown as CellContext
const plan = { rounds: 2, small: 10, large: 30 }

test('a cell that cannot be counted here is a failed row saying so, with no figure', async () => {
  const cell = catalogCellPlan('haproxy', { series: 'work', variant: 'article', connections: 1 })
  const r = await measureRequestWork(cell, 1, plan, ctx)
  assert.equal(r.status, 'failed')
  assert.match(r.reason, /^not countable here: roles on several hosts \(--hosts\)/)
  assert.equal(r.instructions_per_req, null)
  assert.equal(r.series, 'work')
  const h = await measureHandshakeWork({ ...cell, keyType: 'rsa4096' }, 1, plan, ctx)
  assert.equal(h.status, 'failed')
  assert.equal(h.key_type, 'rsa4096')
  assert.match(h.reason, /^not countable here/)
})

test("the CPU features line names what is kept and what is masked, from the machine's flags", () => {
  assert.equal(cpuFeatures('flags\t\t: fpu sse4_2 aes pclmulqdq avx avx2\n'), 'cpu sse4_2 aes pclmulqdq; masked avx avx2')
  assert.equal(cpuFeatures('flags : fpu sse4_2\n'), 'cpu sse4_2')
  assert.equal(cpuFeatures(''), 'cpu none of sse4_2/aes/pclmulqdq')
})

test("the setup line states the tool, the one worker and a Go proxy's environment", () => {
  const line = workSetup('valgrind-3.19.0', { stack: loadStack('traefik'), version: '3.7.15' }, null)
  assert.match(line, /^valgrind-3\.19\.0 callgrind; 1 worker; GOGC=off; GODEBUG=asyncpreemptoff=1,gctrace=1,/)
  assert.match(
    workSetup('valgrind-3.19.0', { stack: loadStack('nginx'), version: '1.31.3' }, null),
    /^valgrind-3\.19\.0 callgrind; 1 worker; config master_process off;; cpu /,
  )
  // HAProxy's stuck-thread warning exists from 3.0.x: older versions run their config as it is.
  const haproxy = loadStack('haproxy')
  assert.match(workSetup('valgrind-3.19.0', { stack: haproxy, version: '3.4.7' }, null), /; 1 worker; config warn-blocked-traffic-after 1000ms; cpu /)
  assert.doesNotMatch(workSetup('valgrind-3.19.0', { stack: haproxy, version: '2.8.25' }, null), /GODEBUG|config /)
})

test('nginx runs as one process under callgrind: its edit applies to every template, and an edit that matches nothing is an error', () => {
  const stack = loadStack('nginx')
  const counted = { prefix: [], env: {}, threads: 1, readyTimeoutMs: 1, edits: stack.work!.config_edits }
  assert.equal(countedEdits('daemon off;\nmaster_process on;\n', { stack, counted }), 'daemon off;\nmaster_process off;\n')
  assert.throws(() => countedEdits('daemon off;\n', { stack, counted }), /stacks\/nginx\/stack\.yaml.*"master_process on;" is not in the rendered config/)
  assert.equal(countedEdits('x', { stack }), 'x', 'not counted: untouched')
})
