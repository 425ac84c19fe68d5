import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { focusCells, knownVariants, parseFocus } from '../../lib/series/focus.ts'
import { poolingCells } from '../../lib/series/pooling.ts'

const cells = () => poolingCells(['haproxy', 'nginx'], { connections: 50, backendVersion: 'b', custom: [{ proxy: 'nginx', file: '/tmp/my.conf' }] })

test('no focus keeps every planned cell', () => {
  assert.equal(focusCells(cells(), undefined).length, cells().length)
})

test('--variants keeps those variants (and the direct row) in one place for every series', () => {
  const focus = parseFocus({ variants: 'article,custom:my.conf' }, ['haproxy', 'nginx'], ['/tmp/my.conf'])
  const kept = focusCells(cells(), focus).map((c) => `${c.proxy} ${c.variant}`)
  assert.ok(kept.includes('direct direct'))
  assert.ok(kept.includes('nginx custom:my.conf'))
  assert.ok(kept.includes('haproxy article'))
  assert.ok(
    kept.every((k) => /direct|article|custom:my\.conf/.test(k)),
    kept.join(', '),
  )
})

test("--key-types filters on the cell's key type", () => {
  const c = [
    { proxy: 'haproxy', variant: 'pool-added' as const, keyType: 'ec256' as const },
    { proxy: 'haproxy', variant: 'pool-added' as const, keyType: 'rsa4096' as const },
  ]
  assert.deepEqual(
    focusCells(c, parseFocus({ keyTypes: 'rsa4096' }, ['haproxy'], [])).map((x) => x.keyType),
    ['rsa4096'],
  )
  assert.deepEqual(focusCells(c, parseFocus({ keyTypes: 'rsa4096', variants: 'article' }, ['haproxy'], [])), [])
})

test('unknown names are one line listing the valid ones', () => {
  const valid = knownVariants(['haproxy'], ['/x/a.cfg'])
  assert.ok(valid.includes('reuse-never') && valid.includes('custom:a.cfg') && !valid.includes('literal'))
  assert.throws(
    () => parseFocus({ variants: 'article,pool-add' }, ['haproxy'], ['/x/a.cfg']),
    (e: Error) => e instanceof UserError && e.message === `--variants: unknown variant "pool-add". Use a comma-separated list of: ${valid.join(', ')}`,
  )
  assert.throws(
    () => parseFocus({ keyTypes: 'rsa1024' }, ['haproxy'], []),
    /--key-types: unknown key type "rsa1024"\. Use a comma-separated list of: ec256, rsa2048, rsa4096$/,
  )
  assert.throws(() => parseFocus({ variants: ' , ' }, ['haproxy'], []), /--variants: " , " names no variant\./)
  assert.equal(parseFocus({}, ['haproxy'], []), undefined)
})
