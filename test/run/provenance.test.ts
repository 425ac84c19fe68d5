import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readManifest } from '../../lib/data/manifest.ts'
import { manifestSchema, SCHEMA_VERSION, type Invocation, type Manifest } from '../../lib/data/schema.ts'
import { OLD_FORMAT_RUN } from '../fixtures/run.ts'
import { nextInvocationId, previousSettings, refusal, resumeDifferences, type ResumeSettings } from '../../lib/run/provenance.ts'

/** Written before invocations were recorded. */
const old = readManifest(OLD_FORMAT_RUN)!
const same: ResumeSettings = {
  profile: 'quick',
  repeats: 2,
  duration_s: 3,
  proxies: ['caddy', 'traefik', 'envoy', 'nginx', 'haproxy'],
  cpusets: { proxy: '1', backend: '0', generator: '0' },
  runtime: 'native',
  network: 'host',
  seed: undefined,
  custom_configs: [],
  schema_version: old.schema_version,
}

test('an older manifest parses with no invocations; its settings are the manifest itself', () => {
  assert.deepEqual(old.invocations, [])
  assert.equal(nextInvocationId(old), 1)
  assert.equal(nextInvocationId(undefined), 1)
  assert.equal(previousSettings(old).seed, 905154383)
  assert.equal(previousSettings(old).network, 'host')
})

test('a resume with the same settings (proxies in any order, the seed left out or the same, runtime auto) differs in nothing', () => {
  assert.deepEqual(resumeDifferences(old, same), [])
  assert.deepEqual(resumeDifferences(old, { ...same, seed: 905154383, runtime: 'auto' }), [])
  assert.equal(refusal([]), null)
})

test("each setting that differs is one line naming it, the run's value and the new one", () => {
  const cases: [Partial<ResumeSettings>, string][] = [
    [{ profile: 'smoke' }, '--profile quick → smoke'],
    [{ repeats: 5 }, '--repeats 2 → 5'],
    [{ duration_s: 10 }, '--duration 3 → 10'],
    [{ proxies: ['haproxy'] }, '--proxies haproxy,nginx,envoy,traefik,caddy → haproxy'],
    [{ cpusets: { proxy: '0', backend: '0', generator: '0' } }, '--cpus proxy=1 → proxy=0'],
    [{ runtime: 'docker' }, '--runtime native → docker'],
    [{ network: 'bridge' }, '--network host → bridge'],
    [{ seed: 7 }, '--seed 905154383 → 7'],
    [{ custom_configs: [{ proxy: 'nginx', file: '/a/my.conf', sha256: 'ab'.repeat(32) }] }, `--config nginx=my.conf@${'ab'.repeat(6)} (now)`],
    [{ schema_version: SCHEMA_VERSION }, `schema version 1 → ${SCHEMA_VERSION} (this harness writes ${SCHEMA_VERSION})`],
  ]
  for (const [change, line] of cases) assert.deepEqual(resumeDifferences(old, { ...same, ...change }), [line])
  const two = resumeDifferences(old, { ...same, profile: 'smoke', seed: 7 })
  assert.equal(refusal(two), 'differs from the run it resumes: --profile quick → smoke (and 1 more: --seed 905154383 → 7)')
})

test('a changed custom config (same name, other content) is a difference; the last invocation is what a resume is compared with', () => {
  const inv = (id: number, o: Partial<Invocation>): Invocation => ({
    id,
    commit: 'abc',
    dirty: false,
    argv: [],
    profile: 'quick',
    repeats: 2,
    duration_s: 3,
    series: ['pooling'],
    proxies: ['haproxy'],
    cpusets: same.cpusets,
    runtime: 'native',
    network: 'host',
    seed: 1,
    components: [],
    custom_configs: [],
    schema_version: SCHEMA_VERSION,
    fingerprint: null,
    started: 't',
    finished: null,
    changes: [],
    ...o,
  })
  const m: Manifest = manifestSchema.parse({
    ...old,
    invocations: [inv(1, {}), inv(2, { seed: 2, custom_configs: [{ proxy: 'haproxy', file: '/a/x.cfg', sha256: '11'.repeat(32) }] })],
  })
  const now = {
    ...same,
    schema_version: SCHEMA_VERSION,
    proxies: ['haproxy'],
    custom_configs: [{ proxy: 'haproxy', file: '/a/x.cfg', sha256: '22'.repeat(32) }],
  }
  assert.deepEqual(resumeDifferences(m, now), [`--config haproxy=x.cfg@${'11'.repeat(6)} (was) → haproxy=x.cfg@${'22'.repeat(6)} (now)`])
  assert.deepEqual(resumeDifferences(m, { ...now, seed: 2, custom_configs: m.invocations[1]!.custom_configs }), [])
  assert.equal(nextInvocationId(m), 3)
  // A paired run's moment: a resume at the other one is a difference; a run that recorded none (or an unpaired resume) is not compared.
  const paired: Manifest = manifestSchema.parse({ ...m, invocations: [inv(1, { pair_at: 'instant' })] })
  const resumed = { ...now, seed: 1, custom_configs: [] }
  assert.deepEqual(resumeDifferences(paired, { ...resumed, pair_at: 'adjacent' }), ['--pair-at instant → adjacent'])
  assert.deepEqual(resumeDifferences(paired, { ...resumed, pair_at: 'instant' }), [])
  assert.deepEqual(resumeDifferences(m, { ...resumed, seed: 2, custom_configs: m.invocations[1]!.custom_configs, pair_at: 'adjacent' }), [])
})
