import assert from 'node:assert/strict'
import { test } from 'node:test'
import { acmeDefaultFields } from '../../lib/measure/default-key.ts'

// The flag's line as `traefik --help` prints it (3.0.4 to 3.7.15).
const HELP = `Usage: traefik [command] [flags] [arguments]
    --certificatesresolvers.<name>.acme.keytype  (Default: "RSA4096")
        KeyType used for generating certificate private key. Allow value 'EC256',
        'EC384', 'RSA2048', 'RSA4096', 'RSA8192'.
`

test("an ACME default row: the --help Default in the harness's key-type words", () => {
  assert.deepEqual(acmeDefaultFields('traefik', HELP, 'exit 0'), { served_key: 'rsa4096' })
  assert.deepEqual(acmeDefaultFields('traefik', HELP.replace('"RSA4096"', '"EC384"'), 'exit 0'), { served_key: 'ec384' })
})

test('an ACME default row: a help without the line is a failed row that says how the binary ended; an unknown type is invalid', () => {
  assert.deepEqual(acmeDefaultFields('traefik', 'flag provided but not defined: -help\n', 'exit 1'), {
    status: 'failed',
    reason: 'traefik --help states no acme.keytype default (exit 1: flag provided but not defined: -help)',
  })
  assert.deepEqual(acmeDefaultFields('traefik', '', 'still running after 15 s'), {
    status: 'failed',
    reason: 'traefik --help states no acme.keytype default (still running after 15 s: no output)',
  })
  assert.deepEqual(acmeDefaultFields('traefik', HELP.replace('"RSA4096"', '"DSA1024"'), 'exit 0'), {
    status: 'invalid',
    reason: 'an ACME key type this harness has no word for (DSA1024)',
  })
})
