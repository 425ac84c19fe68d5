import { test, type TestContext, type TestOptions } from 'node:test'
import { decideSkip, inCi, readAllowedSkips } from '../../lib/core/ci-skips.ts'

/**
 * The one way a test skips for a missing component (docs/ci.md#skips; the rule is
 * lib/core/ci-skips.ts): where `missing` is a reason the test skips with `[id] reason`,
 * and in CI (CI=true) it fails with that reason unless .ci/allowed-skips lists `id`.
 * test/architecture/skips.test.ts keeps every other skip out of test/.
 */
export function testNeeding(name: string, need: { id: string; missing: string | false } & TestOptions, fn: (t: TestContext) => void | Promise<void>): void {
  const { id, missing, ...options } = need
  const d = decideSkip(id, name, missing, { ci: inCi(), allowed: readAllowedSkips() })
  if (d.kind === 'fail')
    return void test(name, options, () => {
      throw new Error(d.reason)
    })
  test(name, { ...options, skip: d.kind === 'skip' ? d.reason : false }, fn)
}

/** Inside a running test: skip it from here (`return skipNeeding(t, …)`) by the same rule. */
export function skipNeeding(t: TestContext, id: string, missing: string): void {
  const d = decideSkip(id, t.name, missing, { ci: inCi(), allowed: readAllowedSkips() })
  if (d.kind === 'fail') throw new Error(d.reason)
  if (d.kind === 'skip') t.skip(d.reason)
}
