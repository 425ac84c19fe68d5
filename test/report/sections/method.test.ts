import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_FOREIGN_SHARE, MAX_GENERATOR_SHARE } from '../../../lib/catalog/limits.ts'
import { BOOTSTRAP_RESAMPLES } from '../../../lib/core/intervals.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { slugify } from '../../../lib/report/render.ts'
import { METHOD_ANCHORS, methodSection, readingGuideSection } from '../../../lib/report/sections/method.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

const section = (run = loadRun(FIXTURE_RUN)) => {
  const a = new Article()
  methodSection(a, { run } as ArticleInput)
  return a.toString()
}

test("the method states the constants the harness ran with and the run's own profile, not typed figures", () => {
  const run = loadRun(FIXTURE_RUN)
  const md = section(run)
  const p = run.manifest.profile_settings
  assert.match(md, new RegExp(`over a ${p.duration_s} s window after ${p.warmup_s} s of warm-up, with ${p.connections} keep-alive`))
  assert.match(md, new RegExp(`${MAX_GENERATOR_SHARE * 100}% or more of its cores`))
  assert.match(md, new RegExp(`more than ${MAX_FOREIGN_SHARE * 100}% of the measured cores`))
  assert.match(md, new RegExp(`${BOOTSTRAP_RESAMPLES} resamples`))
  assert.match(md, new RegExp(`seed ${run.manifest.order_seed}`))
})

test('every method anchor is the id the site gives one of its headings, and the guide links the method', () => {
  const headings = [...section().matchAll(/^### (.*)$/gm)].map((m) => slugify(m[1]!))
  for (const anchor of Object.values(METHOD_ANCHORS)) assert.ok(headings.includes(anchor), anchor)
  const a = new Article()
  readingGuideSection(a)
  assert.match(a.toString(), /^> \*\*How to read this report\.\*\*.*\[Method\]\(#method\)/m)
})
