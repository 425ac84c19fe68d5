import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../../lib/catalog/reuse.ts'
import { poolTable } from '../../lib/run/pool-detector.ts'

const POOLED_MAX = POOLED_MAX_PER_1K / 10
const UNPOOLED_MIN = UNPOOLED_MIN_PER_1K / 10
import { formatTable } from '../../lib/core/text-table.ts'

// Every proxy, every catalog version, every variant, on the real binaries: each must
// answer 200 "hello world" over HTTP/1.1 + TLS and reuse (or not) as documented.
test('pool detector on the real binaries of all five proxies', async () => {
  const work = mkdtempSync(join(tmpdir(), 'pb-pool-'))
  const certs = await ensureCerts(join(work, 'certs'), { force: false, log: memoryLogger() })
  const rows = await poolTable({ proxies: PROXIES, certs, workDir: work, log: memoryLogger() })
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
  for (const r of nginxArticle) assert.ok(r.conns_per_100! >= UNPOOLED_MIN)
})
