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
  const def = s._def as ZodDef
  switch (def.typeName) {
    case 'ZodString':
      if (def.checks?.length) throw unsupported(at, 'string checks')
      return { type: 'string' }
    case 'ZodNumber':
      return numberSchema(def, at)
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
      return recordSchema(def, at)
    case 'ZodUnion':
      return { anyOf: (def.options as ZodTypeAny[]).map((o, i) => convert(o, `${at}|${i}`)) }
    case 'ZodObject':
      return objectSchema(def, at)
    default:
      throw unsupported(at, def.typeName)
  }
}

type ZodDef = { typeName: string; [k: string]: any }

/** A number: an integer with .int(); .finite() is what JSON numbers are anyway; any other check has no conversion. */
function numberSchema(def: ZodDef, at: string): JsonSchema {
  const kinds = new Set<string>((def.checks ?? []).map((c: { kind: string }) => c.kind))
  for (const k of kinds) if (k !== 'int' && k !== 'finite') throw unsupported(at, `number check ${k}`)
  return { type: kinds.has('int') ? 'integer' : 'number' }
}

/** A record keyed by strings: an object whose every property is the value's schema. */
function recordSchema(def: ZodDef, at: string): JsonSchema {
  if (def.keyType._def.typeName !== 'ZodString') throw unsupported(at, 'record keys other than strings')
  return { type: 'object', additionalProperties: convert(def.valueType, `${at}{}`) }
}

/** An object: its properties, those not optional required. */
function objectSchema(def: ZodDef, at: string): JsonSchema {
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

const unwrapOptional = (s: ZodTypeAny): ZodTypeAny =>
  (s._def as { typeName: string }).typeName === 'ZodOptional' ? (s._def as { innerType: ZodTypeAny }).innerType : s

const unsupported = (at: string, what: string) =>
  new Error(`zodToJsonSchema: ${what} at ${at || 'the root'} has no conversion here; add one to lib/core/json-schema.ts`)
