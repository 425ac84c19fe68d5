import type { ZodTypeAny } from 'zod'

/**
 * A JSON Schema (draft 2020-12) of a zod schema, for readers in other languages and for an
 * independent validator: the published docs/summary.schema.json is generated from the zod
 * schema the code validates with, and a test keeps the two in step (docs/ci.md#the-json-summary-schema).
 * Covers the zod kinds the exported documents use; any other kind is an error here, never
 * a schema that accepts everything.
 */
export type JsonSchema = { [key: string]: unknown }

export function zodToJsonSchema(schema: ZodTypeAny, meta: { id: string; title: string; description?: string }): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: meta.id,
    title: meta.title,
    ...(meta.description ? { description: meta.description } : {}),
    ...convert(schema, ''),
  }
}

function convert(s: ZodTypeAny, at: string): JsonSchema {
  const def = s._def as { typeName: string; [k: string]: any }
  switch (def.typeName) {
    case 'ZodString':
      if (def.checks?.length) throw unsupported(at, 'string checks')
      return { type: 'string' }
    case 'ZodNumber': {
      const kinds = new Set<string>((def.checks ?? []).map((c: { kind: string }) => c.kind))
      for (const k of kinds) if (k !== 'int' && k !== 'finite') throw unsupported(at, `number check ${k}`)
      return { type: kinds.has('int') ? 'integer' : 'number' }
    }
    case 'ZodBoolean':
      return { type: 'boolean' }
    case 'ZodNull':
      return { type: 'null' }
    case 'ZodLiteral':
      return { const: def.value }
    case 'ZodEnum':
      return { type: 'string', enum: [...def.values] }
    case 'ZodNullable':
      return { anyOf: [convert(def.innerType, at), { type: 'null' }] }
    case 'ZodArray':
      return { type: 'array', items: convert(def.type, `${at}[]`) }
    case 'ZodRecord':
      if (def.keyType._def.typeName !== 'ZodString') throw unsupported(at, 'record keys other than strings')
      return { type: 'object', additionalProperties: convert(def.valueType, `${at}{}`) }
    case 'ZodUnion':
      return { anyOf: (def.options as ZodTypeAny[]).map((o, i) => convert(o, `${at}|${i}`)) }
    case 'ZodObject': {
      const shape = (def.shape as () => Record<string, ZodTypeAny>)()
      const properties: Record<string, JsonSchema> = {}
      const required: string[] = []
      for (const [key, value] of Object.entries(shape)) {
        const optional = value.isOptional()
        properties[key] = convert(optional ? unwrapOptional(value) : value, `${at}.${key}`)
        if (!optional) required.push(key)
      }
      // zod's default strips unknown keys (a reader may meet them); .strict() refuses them.
      return { type: 'object', properties, required, ...(def.unknownKeys === 'strict' ? { additionalProperties: false } : {}) }
    }
    default:
      throw unsupported(at, def.typeName)
  }
}

const unwrapOptional = (s: ZodTypeAny): ZodTypeAny =>
  (s._def as { typeName: string }).typeName === 'ZodOptional' ? (s._def as { innerType: ZodTypeAny }).innerType : s

const unsupported = (at: string, what: string) =>
  new Error(`zodToJsonSchema: ${what} at ${at || 'the root'} has no conversion here; add one to lib/core/json-schema.ts`)
