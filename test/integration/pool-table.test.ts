import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadStack, PROXIES } from '../../lib/catalog/stack.ts'
import { changeVersions, chooseVersions } from '../../lib/catalog/version-choice.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../../lib/catalog/reuse.ts'
import { poolTable } from '../../lib/run/pool-detector.ts'

const POOLED_MAX = POOLED_MAX_PER_1K / 10
const UNPOOLED_MIN = UNPOOLED_MIN_PER_1K / 10
import { formatTable } from '../../lib/core/text-table.ts'

// Every proxy, every variant, on the real binaries of the oldest and the newest catalog
// version and of the versions either side of each documented change (changeVersions: reuse
// "from X", since X): each must answer 200 "hello world" over HTTP/1.1 + TLS and reuse (or not)
// as documented. Every catalog version: `npm run pool-table` (docs/method/instruments.md#pool-detector).
const versions = PROXIES.flatMap((p) => {
  const stack = loadStack(p)
  return [...chooseVersions(stack, { kind: 'all' }).filter((_, i, all) => i === 0 || i === all.length - 1), ...changeVersions(stack)].map(
    (v) => `${p} ${v.version}`,
  )
})

test('pool detector on the real binaries of all five proxies', async () => {
  const work = mkdtempSync(join(tmpdir(), 'pb-pool-'))
  const certs = await ensureCerts(join(work, 'certs'), { force: false, log: memoryLogger() })
  const list = [...new Set(versions.map((v) => v.split(' ')[1]!))]
  const rows = await poolTable({ proxies: PROXIES, versions: { kind: 'list', versions: list }, certs, workDir: work, log: memoryLogger() })
  // Only the versions chosen for each proxy: a version string of one proxy is not another's.
  assert.deepEqual([...new Set(rows.map((r) => `${r.proxy} ${r.version}`))].sort(), [...new Set(versions)].sort())
  console.log(formatTable(rows, ['proxy', 'version', 'variant', 'conns_per_100', 'expected', 'status', 'note']))

  for (const proxy of PROXIES)
    assert.ok(
      rows.some((r) => r.proxy === proxy),
      `${proxy} measured`,
    )
  for (const r of rows) {
    const cell = `${r.proxy} ${r.version} ${r.variant}`
    assert.equal(r.ok_responses, r.requests, `${cell} answered: ${r.note ?? ''}`)
    assert.equal(r.proto, 'HTTP/1.1', `${cell} protocol`)
    if (r.expected === 'reuse') assert.ok(r.conns_per_100! <= POOLED_MAX, `${cell} reuses: ${r.conns_per_100} conns per 100`)
    else assert.ok(r.conns_per_100! >= UNPOOLED_MIN, `${cell} does not reuse: ${r.conns_per_100} conns per 100`)
  }
  // The article's nginx config never reuses, on any version (literal proxy_pass).
  const nginxArticle = rows.filter((r) => r.proxy === 'nginx' && r.variant === 'article')
  assert.ok(nginxArticle.length >= 2)
  // nginx's named upstream without keepalive: unpooled on the version before 1.29.7, pooled on the one after.
  const upstreamDefault = (version: string) => rows.find((r) => r.proxy === 'nginx' && r.variant === 'upstream-default' && r.version === version)!
  assert.ok(upstreamDefault('1.26.3').conns_per_100! >= UNPOOLED_MIN)
  assert.ok(upstreamDefault('1.30.6').conns_per_100! <= POOLED_MAX)
  for (const r of nginxArticle) assert.ok(r.conns_per_100! >= UNPOOLED_MIN)
})
