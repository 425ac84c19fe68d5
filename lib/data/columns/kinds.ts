import { z } from 'zod'

/** The empty value of a kind whose empty cell is an error (a column every file of its table has). */
export const NO_EMPTY = Symbol('no empty value')
export type NoEmpty = typeof NO_EMPTY

/**
 * What a column holds: the zod type of its value in a row, whether its CSV cell is a
 * number, and its empty value: what an empty cell, or a column its file predates, reads as
 * (docs/data.md#schema-versions).
 */
export interface Kind<Z extends z.ZodTypeAny = z.ZodTypeAny, E = unknown> {
  zod: Z
  numeric: boolean
  empty: E
}

const kind = <Z extends z.ZodTypeAny, E extends z.infer<Z> | NoEmpty>(zod: Z, numeric: boolean, empty: E): Kind<Z, E> => ({ zod, numeric, empty })

const finite = z.number().finite()

/** The kinds of the row tables' columns. */
export const KINDS = {
  /** Text that identifies the row (run, series, proxy, version, variant): never empty. */
  id: kind(z.string().min(1), false, NO_EMPTY),
  /** Free text; empty: none, or not applicable. */
  text: kind(z.string(), false, ''),
  /** A count of the window (requests, errors, connections): always written, 0 when none. */
  count: kind(z.number().int().nonnegative(), true, NO_EMPTY),
  /** A whole number from 1 (the repeat, workers). */
  positive: kind(z.number().int().positive(), true, NO_EMPTY),
  /** A length of time in seconds. */
  seconds: kind(finite.nonnegative(), true, NO_EMPTY),
  /** A measured figure; empty: not applicable or not measured. */
  measured: kind(finite.nullable(), true, null),
  /** A count where it applies (a column of some rows of a file); empty elsewhere. */
  countOrNone: kind(z.number().int().nonnegative().nullable(), true, null),
  /** A whole number from 1 where it applies (a body size, streams, an invocation id); empty elsewhere. */
  positiveOrNone: kind(z.number().int().positive().nullable(), true, null),
  /** A request path; empty: `/`, the path of every row before paths were chosen. */
  path: kind(z.string().startsWith('/'), false, '/'),
}

/** One of a fixed set of words, never empty. */
export const oneOf = <U extends string, T extends [U, ...U[]]>(values: T) => kind(z.enum(values), false, NO_EMPTY)

/** One of a fixed set of words; empty: none of them (the default the row's meaning falls back to). */
export const oneOfOrNone = <U extends string, T extends [U, ...U[]]>(values: T) => kind(z.enum(values).optional(), false, undefined)
