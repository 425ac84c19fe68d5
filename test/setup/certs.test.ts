import assert from 'node:assert/strict'
import { statSync, readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ensureCerts, KEY_TYPES } from '../../lib/setup/certs.ts'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'

test('certs: a CA and one leaf per key type, keys 0600, reused unless forced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-certs-'))
  const first = await ensureCerts(dir, { force: false, log: memoryLogger() })
  assert.equal(first.reused, false)
  for (const kt of KEY_TYPES) {
    const f = first.files[kt]
    assert.equal(statSync(f.key).mode & 0o777, 0o600)
    assert.equal(statSync(f.pem).mode & 0o777, 0o600)
    assert.equal(readFileSync(f.pem, 'utf8'), readFileSync(f.cert, 'utf8') + readFileSync(f.key, 'utf8'), 'HAProxy PEM = certificate + key')
    const verify = await exec('openssl', ['verify', '-CAfile', first.ca, f.cert])
    assert.equal(verify.code, 0, verify.stderr)
    const text = (await exec('openssl', ['x509', '-noout', '-text', '-in', f.cert])).stdout
    assert.match(text, /DNS:localhost, IP Address:127\.0\.0\.1/)
    const expected = { ec256: /prime256v1|P-256/, rsa2048: /\(2048 bit\)/, rsa4096: /\(4096 bit\)/ }[kt]
    assert.match(text, expected)
  }
  const again = await ensureCerts(dir, { force: false, log: memoryLogger() })
  assert.equal(again.reused, true)
  assert.equal(again.caSha256, first.caSha256)
  const forced = await ensureCerts(dir, { force: true, log: memoryLogger() })
  assert.notEqual(forced.caSha256, first.caSha256)
})
