import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { buildReport } from '../../lib/report/build.ts'
import { copyFixtureRun } from '../fixtures/run.ts'

test('site: no private key material; an unknown baseline changes nothing', async () => {
  const site = mkdtempSync(join(tmpdir(), 'pb-site-'))
  const dir = copyFixtureRun()
  await buildReport({ runDir: dir, siteDir: site, pdf: false, log: memoryLogger(), generated: 'test' })
  const before = readFileSync(join(site, 'index.html'), 'utf8')
  await assert.rejects(buildReport({ runDir: dir, baseline: 'no-such-baseline', siteDir: site, pdf: false, log: memoryLogger() }), /unknown baseline/)
  assert.equal(readFileSync(join(site, 'index.html'), 'utf8'), before)
  const header = ['-----BEGIN', 'PRIVATE KEY-----'].join(' ')
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
  for (const f of walk(site)) assert.ok(!readFileSync(f, 'latin1').includes('PRIVATE KEY'), `${f} has no key (${header})`)
})
