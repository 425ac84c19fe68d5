import assert from 'node:assert/strict'
import { test } from 'node:test'
import { acmeDefaultKeyType, keyTypeWords, parseCertificateText, servedKeyName } from '../../lib/data/default-keys.ts'

// `openssl x509 -noout -text` of the two leaves the proxies served here (trimmed to the lines read).
const TRAEFIK = `Certificate:
    Data:
        Issuer: CN = TRAEFIK DEFAULT CERT
        Subject: CN = TRAEFIK DEFAULT CERT
        Subject Public Key Info:
            Public Key Algorithm: rsaEncryption
                Public-Key: (2048 bit)
                Modulus:
`
const CADDY = `Certificate:
    Data:
        Issuer: CN = Caddy Local Authority - ECC Intermediate
        Subject: 
        Subject Public Key Info:
            Public Key Algorithm: id-ecPublicKey
                Public-Key: (256 bit)
                ASN1 OID: prime256v1
                NIST CURVE: P-256
`

test("the served certificate in the harness's key-type words", () => {
  const t = parseCertificateText(TRAEFIK)!
  assert.deepEqual(t, { algorithm: 'rsaEncryption', bits: 2048, curve: '', subject: 'CN = TRAEFIK DEFAULT CERT', issuer: 'CN = TRAEFIK DEFAULT CERT' })
  assert.equal(servedKeyName(t), 'rsa2048')
  const c = parseCertificateText(CADDY)!
  // An empty Subject stays empty: never the next line's "Subject Public Key Info".
  assert.deepEqual(c, { algorithm: 'id-ecPublicKey', bits: 256, curve: 'P-256', subject: '', issuer: 'CN = Caddy Local Authority - ECC Intermediate' })
  assert.equal(servedKeyName(c), 'ec256')
  assert.equal(servedKeyName({ algorithm: 'id-ecPublicKey', bits: 384, curve: 'secp384r1' }), 'ec384')
  assert.equal(servedKeyName({ algorithm: 'rsaEncryption', bits: 4096, curve: '' }), 'rsa4096')
  assert.equal(servedKeyName({ algorithm: 'dsaEncryption', bits: 1024, curve: '' }), '')
  assert.equal(parseCertificateText('not a certificate'), null)
})

test('published default key types in the same words', () => {
  assert.equal(keyTypeWords('RSA4096'), 'rsa4096')
  assert.equal(keyTypeWords('ec256'), 'ec256')
  assert.equal(keyTypeWords('ECDSA P-256'), 'ec256')
})

// `traefik --help` of Traefik 3.0.4 and 3.7.15 (the catalog's ends), the lines around the flag.
const TRAEFIK_HELP = `    --certificatesresolvers.<name>.acme.httpchallenge.entrypoint  (Default: "")
        HTTP challenge EntryPoint

    --certificatesresolvers.<name>.acme.keytype  (Default: "RSA4096")
        KeyType used for generating certificate private key. Allow value 'EC256',
        'EC384', 'RSA2048', 'RSA4096', 'RSA8192'.
`

test("Traefik's ACME default key type from its --help line, in the same words", () => {
  assert.equal(acmeDefaultKeyType(TRAEFIK_HELP), 'RSA4096')
  assert.equal(keyTypeWords(acmeDefaultKeyType(TRAEFIK_HELP)!), 'rsa4096')
  assert.equal(acmeDefaultKeyType(TRAEFIK_HELP.replace('"RSA4096"', '"EC256"')), 'EC256')
  // Another flag's Default is never taken for it; no line, or an empty Default, says nothing.
  assert.equal(acmeDefaultKeyType(TRAEFIK_HELP.replace('acme.keytype', 'acme.storage')), null)
  assert.equal(acmeDefaultKeyType(TRAEFIK_HELP.replace('"RSA4096"', '""')), null)
  assert.equal(acmeDefaultKeyType(''), null)
})
