import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { ACME_DEFAULT_SERIES, DEFAULT_KEY_SERIES, DEFAULT_KEYS } from '../../lib/data/default-keys.ts'
import { appendRow, readTable } from '../../lib/data/tables.ts'
import type { CellContext } from '../../lib/measure/cell.ts'
import { measureDefaultKey } from '../../lib/measure/default-key.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { defaultKeyCells } from '../../lib/series/tls.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'

// The real binaries, given no certificate: Traefik serves the certificate it generates for
// itself, Caddy its internal issuer's leaf; the key is read from the handshake (openssl
// s_client) and written as a row of default-keys.csv. Beside them, Traefik's ACME default key
// type, as the running binary's --help states it (row series tls-acme-default). The keys
// asserted are what each binary generates or states (its code), not a measurement of the machine.
test('default-cert variants: Traefik serves its generated RSA-2048 certificate and states an ACME default of RSA-4096, Caddy an internal EC P-256 leaf', async () => {
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
      cells.map((c) => `${c.series} ${c.proxy} ${c.variant}`),
      [`${DEFAULT_KEY_SERIES} traefik default-cert`, `${DEFAULT_KEY_SERIES} caddy default-cert`, `${ACME_DEFAULT_SERIES} traefik default-cert`],
      'only the proxies with a certificate of their own; the ACME default only for Traefik',
    )
    for (const c of cells) appendRow(out, DEFAULT_KEYS, await measureDefaultKey(c, 1, ctx))
    const rows = readTable(out, DEFAULT_KEYS)
    const by = new Map(rows.map((r) => [`${r.series} ${r.proxy}`, r]))
    const served = (proxy: string) => by.get(`${DEFAULT_KEY_SERIES} ${proxy}`)!
    assert.equal(served('traefik').status, 'valid', served('traefik').reason)
    assert.equal(served('traefik').served_key, 'rsa2048')
    assert.equal(served('traefik').issuer, 'CN = TRAEFIK DEFAULT CERT')
    assert.equal(served('caddy').status, 'valid', served('caddy').reason)
    assert.equal(served('caddy').served_key, 'ec256')
    assert.match(served('caddy').issuer, /Caddy Local Authority/)
    const acme = by.get(`${ACME_DEFAULT_SERIES} traefik`)!
    assert.equal(acme.status, 'valid', acme.reason)
    assert.equal(acme.served_key, 'rsa4096')
    assert.equal(acme.tool, 'traefik --help')
  } finally {
    await runtime.stopAll()
  }
})
