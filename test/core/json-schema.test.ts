import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { z } from 'zod'
import { zodToJsonSchema } from '../../lib/core/json-schema.ts'

const meta = { id: 'urn:proxybench:test', title: 't' }

test('each zod kind the documents use becomes its JSON Schema, strict objects closed, others open', () => {
  const s = z.object({
    a: z.string(),
    n: z.number().int(),
    x: z.number().nullable(),
    b: z.boolean(),
    l: z.literal('v1'),
    e: z.enum(['p', 'q']),
    arr: z.array(z.string()),
    rec: z.record(z.union([z.string(), z.number(), z.null()])),
    opt: z.string().optional(),
    closed: z.object({ k: z.string() }).strict(),
  })
  const j = zodToJsonSchema(s, meta)
  assert.equal(j.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.deepEqual((j.properties as any).n, { type: 'integer' })
  assert.deepEqual((j.properties as any).x, { anyOf: [{ type: 'number' }, { type: 'null' }] })
  assert.deepEqual(j.required, ['a', 'n', 'x', 'b', 'l', 'e', 'arr', 'rec', 'closed'])
  assert.equal(j.additionalProperties, undefined)
  assert.equal((j.properties as any).closed.additionalProperties, false)
  // The two validators agree on documents either side of each rule.
  const validate = new Ajv2020({ strict: true }).compile(j)
  const good = { a: 's', n: 1, x: null, b: true, l: 'v1', e: 'q', arr: [], rec: { k: 1, m: null }, closed: { k: 'x' } }
  const bad = [
    { ...good, n: 1.5 },
    { ...good, l: 'v2' },
    { ...good, e: 'r' },
    { ...good, rec: { k: true } },
    { ...good, closed: { k: 'x', y: 1 } },
    { ...good, opt: 3 },
    (({ a, ...rest }) => rest)(good),
  ]
  assert.ok(validate(good) && s.safeParse(good).success)
  for (const d of bad) assert.deepEqual([validate(d), s.safeParse(d).success], [false, false], JSON.stringify(d))
  assert.ok(
    validate({ ...good, extra: 1 }) && s.safeParse({ ...good, extra: 1 }).success,
    'zod strips unknown keys of a plain object: the file lets them pass too',
  )
})

test('a kind without a conversion is an error naming where, never a schema that accepts anything', () => {
  assert.throws(() => zodToJsonSchema(z.object({ when: z.date() }), meta), /ZodDate at \.when has no conversion/)
  assert.throws(() => zodToJsonSchema(z.object({ s: z.string().min(2) }), meta), /string checks at \.s/)
})
