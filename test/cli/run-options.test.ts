import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseFlags } from '../../lib/cli/flags.ts'
import { RUN_FLAGS } from '../../lib/cli/run-notebook.ts'
import { parseCustomConfigs, parseNetwork, parseRunOptions, parseSeries } from '../../lib/cli/run-options.ts'
import { UserError } from '../../lib/core/errors.ts'
import { DEFAULT_SERIES, SERIES } from '../../lib/data/series.ts'
import { memoryLogger } from '../../lib/core/log.ts'

test('flags: unknown or unbuilt series, bad --config: one line each', () => {
  assert.deepEqual(parseSeries('pooling'), ['pooling'])
  assert.throws(
    () => parseSeries('pooling,bogus'),
    (e: Error) => e instanceof UserError && e.message === `--series: unknown series "bogus". Use a comma-separated list of: ${SERIES.join(', ')}`,
  )
  assert.deepEqual(parseSeries('versions'), ['versions'])
  assert.throws(() => parseCustomConfigs(['nginx']), /--config: cannot read "nginx"\. Write --config <proxy>=<path>/)
  assert.throws(() => parseCustomConfigs(['apache=/etc/passwd']), /--config: unknown proxy "apache"/)
  assert.throws(() => parseCustomConfigs(['nginx=/nope.conf']), /--config: \/nope\.conf does not exist/)
})

const parse = (flags: Parameters<typeof parseRunOptions>[0]) => parseRunOptions(flags, { install: false, log: memoryLogger() })

test('run flags become typed options with the documented defaults', () => {
  const o = parse({})
  assert.equal(o.profile.name, 'quick')
  assert.deepEqual(o.series, DEFAULT_SERIES, 'quick runs every default series, h2 included (one cell a proxy)')
  // h3 joins standard and full only (docs/series/h3.md#quick-or-standard).
  const withH3 = [...DEFAULT_SERIES.slice(0, DEFAULT_SERIES.indexOf('h2') + 1), 'h3', ...DEFAULT_SERIES.slice(DEFAULT_SERIES.indexOf('h2') + 1)]
  assert.deepEqual(parse({ profile: 'standard' }).series, withH3)
  assert.deepEqual(parse({ profile: 'full' }).series, withH3)
  assert.ok(!o.series.includes('h3'), 'quick leaves h3 out')
  assert.deepEqual(
    parse({ profile: 'smoke' }).series,
    DEFAULT_SERIES.filter((s) => s !== 'h2' && s !== 'work'),
    "smoke (the integration tests' profile) leaves out h2 and work",
  )
  assert.deepEqual(o.proxies, ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy'])
  assert.equal(o.runtime, 'auto')
  assert.equal(o.images, 'offline')
  assert.equal(o.network, 'host')
  assert.equal(o.seed, undefined)
  assert.equal(parse({ seed: '7', profile: 'smoke', proxies: 'nginx' }).seed, 7)
  assert.equal(o.syscallTaxNs, undefined, 'no tax unless asked')
  assert.equal(parse({ 'tax-ns': '2000' }).syscallTaxNs, 2000)
})

test('every bad run flag is one line naming the flag and the fix, before anything runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-flags-'))
  const file = join(dir, 'a-file')
  writeFileSync(file, 'x')
  const cases: [Parameters<typeof parse>[0], RegExp][] = [
    [{ profile: 'fast' }, /^--profile: unknown profile "fast"\. Use one of: smoke, quick, standard, full$/],
    [{ runtime: 'podman' }, /^--runtime: unknown runtime "podman"\. Use auto, docker or native$/],
    [{ images: 'cloud' }, /^--images: unknown mode "cloud"\. Use one of: offline, official, auto$/],
    [{ network: 'bridge', runtime: 'native' }, /^--network: bridge needs the docker runtime/],
    [{ seed: '-1' }, /^--seed -1: not a seed\. Use an integer from 0 to 2147483647/],
    [{ seed: 'abc' }, /^--seed abc: not a seed\./],
    [{ out: file }, /^--out: .*a-file is a file\. Give a directory for the run/],
    [{ config: [`nginx=${dir}`] }, /^--config: .* is not a file\. Give the path of your config file, not a directory$/],
    [{ cpus: 'proxy=9' }, /^--cpus: proxy=9 names CPU 9/],
    [{ cpus: 'proxy=1-0' }, /^--cpus: proxy=1-0: the range 1-0 runs backwards\. Write the lower CPU first, e\.g\. 0-1$/],
    [{ proxies: 'nginx,apache' }, /^--proxies: unknown proxy "apache"/],
    [{ series: 'pooling,tcp' }, /^--series: unknown series "tcp"/],
    [{ 'tax-ns': '0' }, /^--tax-ns 0: not a tax in ns per system call\. Use a whole number from 1 to 50000/],
    [{ 'tax-ns': '2.5k' }, /^--tax-ns 2\.5k: not a tax/],
  ]
  for (const [flags, message] of cases) {
    assert.throws(
      () => parse(flags),
      (e: Error) => e instanceof UserError && message.test(e.message) && !e.message.includes('\n'),
      JSON.stringify(flags),
    )
  }
})

test('--network parses host and bridge; default host', () => {
  assert.equal(parseFlags(['--network', 'bridge'], RUN_FLAGS, 'help', 'x').network, 'bridge')
  assert.equal(parse({}).network, 'host', "the table's default")
  assert.equal(parseNetwork('host', 'native'), 'host')
  assert.equal(parseNetwork('bridge', 'docker'), 'bridge')
  assert.equal(parseNetwork('bridge', 'auto'), 'bridge')
})

test('--network bridge with --runtime native, or an unknown mode: one line naming the flag and the fix', () => {
  assert.throws(
    () => parseNetwork('bridge', 'native'),
    (e: Error) => e.message === '--network: bridge needs the docker runtime (native roles share the host network). Use --runtime docker, or drop --network',
  )
  assert.throws(
    () => parseNetwork('overlay', 'docker'),
    (e: Error) => e.message === '--network: unknown mode "overlay". Use one of: host, bridge',
  )
})

test('--repeats and --duration override the profile; --variants and --key-types focus the run; bad values are one line', () => {
  const o = parse({ profile: 'standard', repeats: '14', duration: '8', proxies: 'haproxy,nginx', variants: 'article,pool-added', 'key-types': 'ec256' })
  assert.equal(o.profile.repeats, 14)
  assert.equal(o.profile.maxRepeats, 14, 'the adaptive maximum is never below the minimum')
  assert.equal(o.profile.durationS, 8)
  assert.equal(o.profile.warmupS, 1, 'the rest of the profile stays')
  assert.deepEqual(o.plan.focus, { variants: ['article', 'pool-added'], keyTypes: ['ec256'] })
  assert.equal(parse({}).plan.focus, undefined)
  assert.equal(parse({ profile: 'quick' }).profile.repeats, 2)
  const one = (e: Error) => e instanceof UserError && !e.message.includes('\n')
  assert.throws(
    () => parse({ repeats: '0' }),
    (e: Error) => one(e) && e.message === '--repeats 0: not a number of repeats. Use a whole number from 1 to 100',
  )
  assert.throws(
    () => parse({ duration: '2.5' }),
    (e: Error) => one(e) && e.message === '--duration 2.5: not a window in seconds. Use a whole number from 1 to 3600',
  )
  assert.throws(
    () => parse({ proxies: 'haproxy', variants: 'literal' }),
    (e: Error) => one(e) && /^--variants: unknown variant "literal"\. Use a comma-separated list of: article, .*reuse-never/.test(e.message),
  )
  assert.throws(
    () => parse({ 'key-types': 'ed25519' }),
    (e: Error) => one(e) && e.message === '--key-types: unknown key type "ed25519". Use a comma-separated list of: ec256, rsa2048, rsa4096',
  )
})

test('--fail-on and --json are run flags', () => {
  const f = parseFlags(
    ['--fail-on', 'regression>10%', '--fail-on', 'finding:F2', '--json', '--variants', 'article', '--key-types', 'ec256', '--repeats', '3', '--duration', '5'],
    RUN_FLAGS,
    'help',
    'notebooks/run-all.mjs',
  )
  assert.deepEqual(f['fail-on'], ['regression>10%', 'finding:F2'])
  assert.equal(f.json, true)
  assert.equal(f['key-types'], 'ec256')
})

test('--hosts runs the h3 series too: QUIC over UDP between the hosts (docs/series/h3.md#runtimes)', () => {
  const hosts = 'proxy=unix:///var/run/docker.sock backend=unix:///var/run/docker.sock generator=unix:///var/run/docker.sock'
  const o = parse({ hosts, series: 'pooling,h3' })
  assert.deepEqual(o.series, ['pooling', 'h3'])
  assert.ok(o.hosts, 'the topology is kept')
  assert.deepEqual(parse({ hosts, series: 'pooling' }).series, ['pooling'])
})

test('--pair-at: with --like, when the two sides of a pair are measured (default instant); without --like or unknown, one line', async () => {
  const { parseRunFlags } = await import('../../lib/cli/run-notebook.ts')
  const o = { notebook: 'notebooks/run-all.mjs', help: '', install: false }
  const like = ['--like', '2026-11-30-quick-2core']
  const at = (argv: string[]) => parseRunFlags(argv, o, memoryLogger()).options.plan.pair?.at
  assert.equal(at([...like, '--pair-at', 'adjacent']), 'adjacent')
  assert.equal(at(like), 'instant')
  assert.throws(() => at(['--pair-at', 'instant']), /^UserError: --pair-at: times a then side, which only --like has/)
  assert.throws(
    () => at([...like, '--pair-at', 'soon']),
    (e: Error) => e instanceof UserError && /--pair-at soon: unknown moment\. Use one of: instant, adjacent/.test(e.message),
  )
})
