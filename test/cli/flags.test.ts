import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseProxyList } from '../../lib/catalog/stack.ts'
import { checkFlag, flagHelp, parseFlags } from '../../lib/cli/flags.ts'
import { RUN_FLAGS, RUN_FLAGS_HELP } from '../../lib/cli/run-flags.ts'

test('an unknown flag is one line naming it and --help', () => {
  assert.throws(
    () => parseFlags(['--bogus'], { json: { type: 'boolean' } }, 'help', 'notebooks/x.mjs'),
    (e: Error) => e.message === "notebooks/x.mjs: Unknown option '--bogus'. See: npx zx notebooks/x.mjs --help",
  )
})

test('known flags parse', () => {
  assert.deepEqual(parseFlags(['--json', '--proxies', 'nginx'], { json: { type: 'boolean' }, proxies: { type: 'string' } }, 'help', 'x'), {
    json: true,
    proxies: 'nginx',
    _: [],
  })
})

test('positional arguments only where a notebook takes them, and no more than it takes', () => {
  assert.throws(() => parseFlags(['results/x'], {}, 'help', 'x'), /x: Unexpected argument 'results\/x'/)
  assert.deepEqual(parseFlags(['results/x', '--id', 'b'], { id: { type: 'string' } }, 'help', 'x', { positionals: 1 }), { id: 'b', _: ['results/x'] })
  assert.throws(
    () => parseFlags(['a', 'b'], {}, 'help', 'x', { positionals: 1 }),
    (e: Error) => e.message === "x: unexpected argument 'b'. See: npx zx x --help",
  )
})

test('an unknown proxy name is one line naming the flag and the valid names', () => {
  assert.deepEqual(parseProxyList('nginx, caddy'), ['nginx', 'caddy'])
  assert.throws(
    () => parseProxyList('nginx,apache'),
    (e: Error) => e.message === '--proxies: unknown proxy "apache". Use a comma-separated list of: haproxy, nginx, envoy, traefik, caddy',
  )
})

test('the run summary counts invalid rows by the kind of their reason', async () => {
  const { reasonKinds } = await import('../../lib/cli/run-notebook.ts')
  const rows = ['errors 87.6% >= 1%', 'errors 2.3% >= 1%', 'did not start: stacks/x.cfg:3: unknown', 'generator saturated (94% of its cpuset)'].map(
    (reason) => ({ reason }),
  )
  assert.equal(reasonKinds(rows), 'errors × 2, did not start × 1, generator saturated × 1')
})

const TABLE = {
  mode: {
    type: 'string',
    arg: 'MODE',
    default: 'host',
    help: ['host (default) or bridge'],
    check: (v: string, runtime: string) => (v === 'bridge' && runtime === 'native' ? 'refused' : v),
  },
  'accept-new-host-keys': { type: 'boolean', help: ['first line', 'second line'] },
  config: { type: 'string', multiple: true, arg: 'PROXY=PATH', help: ['repeatable'] },
} as const

test('a table gives the --help lines: the first beside the flag at the column, the rest under it, a long flag two spaces off, -h last', () => {
  assert.equal(
    flagHelp(TABLE, { column: 20 }),
    [
      '  --mode MODE       host (default) or bridge',
      '  --accept-new-host-keys  first line',
      '                    second line',
      '  --config PROXY=PATH  repeatable',
      '  -h, --help        this help',
    ].join('\n'),
  )
  assert.ok(!flagHelp(TABLE, { helpFlag: false }).includes('--help'))
})

test('the parser takes the table as it is, and leaves an absent flag absent (--like must see what was given); the check applies the default', () => {
  const f = parseFlags(['--config', 'a=1', '--config', 'b=2', '--accept-new-host-keys'], TABLE, 'help', 'x')
  assert.deepEqual(f, { config: ['a=1', 'b=2'], 'accept-new-host-keys': true, _: [] })
  assert.equal(checkFlag(TABLE, f, 'mode', 'docker'), 'host')
  assert.equal(checkFlag(TABLE, { mode: 'bridge' }, 'mode', 'native'), 'refused', 'the other flag a check depends on is its argument')
  assert.deepEqual(checkFlag(TABLE, f, 'config'), ['a=1', 'b=2'], 'no check: the value as parsed')
})

test("every run flag is in the run steps' --help once, in the table's order, with its help text", () => {
  const listed = [...RUN_FLAGS_HELP.matchAll(/^ {2}--([\w-]+)/gm)].map((m) => m[1])
  assert.deepEqual(listed, Object.keys(RUN_FLAGS))
  for (const [name, d] of Object.entries(RUN_FLAGS)) {
    const help: readonly string[] = d.help
    assert.ok(help.length > 0 && help.every((l) => l.trim() !== '' && RUN_FLAGS_HELP.includes(l)), name)
  }
})
