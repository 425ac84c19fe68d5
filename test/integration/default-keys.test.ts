import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { DEFAULT_KEYS } from '../../lib/data/default-keys.ts'
import { appendRow, readTable } from '../../lib/data/tables.ts'
import type { CellContext } from '../../lib/measure/cell.ts'
import { measureDefaultKey } from '../../lib/measure/default-key.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { defaultKeyCells } from '../../lib/series/tls.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'

// The real binaries, given no certificate: Traefik serves the certificate it generates for
// itself, Caddy its internal issuer's leaf; the key is read from the handshake (openssl
// s_client) and written as a row of default-keys.csv. The keys asserted are what each binary
// generates (its code), not a measurement of the machine.
test('default-cert variants: Traefik serves its generated RSA-2048 certificate, Caddy an internal EC P-256 leaf', async () => {
  const log = memoryLogger()
  const runtime = new NativeRuntime(`default-keys-${process.pid}`)
  const out = mkdtempSync(join(tmpdir(), 'pb-default-keys-'))
  const ctx: CellContext = {
    runtime,
    runId: 'default-keys',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log }),
  }
  try {
    const cells = defaultKeyCells(['haproxy', 'traefik', 'caddy'])
    assert.deepEqual(
      cells.map((c) => `${c.proxy} ${c.variant}`),
      ['traefik default-cert', 'caddy default-cert'],
      'only the proxies with a certificate of their own',
    )
    for (const c of cells) appendRow(out, DEFAULT_KEYS, await measureDefaultKey(c, 1, ctx))
    const rows = readTable(out, DEFAULT_KEYS)
    const by = new Map(rows.map((r) => [r.proxy, r]))
    assert.equal(by.get('traefik')!.status, 'valid', by.get('traefik')!.reason)
    assert.equal(by.get('traefik')!.served_key, 'rsa2048')
    assert.equal(by.get('traefik')!.issuer, 'CN = TRAEFIK DEFAULT CERT')
    assert.equal(by.get('caddy')!.status, 'valid', by.get('caddy')!.reason)
    assert.equal(by.get('caddy')!.served_key, 'ec256')
    assert.match(by.get('caddy')!.issuer, /Caddy Local Authority/)
  } finally {
    await runtime.stopAll()
  }
})
