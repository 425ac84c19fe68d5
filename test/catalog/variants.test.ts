import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadStack, PROXIES } from '../../lib/catalog/stack.ts'
import { isVariant, VARIANTS } from '../../lib/catalog/variants.ts'

test('VARIANTS is exactly the variants the stacks declare: none missing, none left over', () => {
  const declared = new Set(PROXIES.flatMap((p) => Object.keys(loadStack(p).variants)))
  assert.deepEqual([...declared].sort(), [...VARIANTS].sort())
})

test('a name is a variant only when VARIANTS lists it', () => {
  assert.ok(isVariant('pool-added'))
  assert.ok(!isVariant('pool-adde'))
  assert.ok(!isVariant('custom:article.cfg'))
})
