import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ENVOY_QUIC_EXTENSION, h3SupportFrom } from '../../lib/setup/h3-support.ts'

test('nginx speaks HTTP/3 only when nginx -V names --with-http_v3_module', () => {
  const v = 'configure arguments: --with-http_ssl_module --with-http_v2_module --with-http_v3_module --with-stream'
  assert.deepEqual(h3SupportFrom('nginx', '1.26.3', v), { capable: true, reason: 'nginx -V: --with-http_v3_module' })
  const without = h3SupportFrom('nginx', '1.31.3', 'configure arguments: --with-http_ssl_module --with-http_v2_module')
  assert.equal(without.capable, false)
  assert.match(without.reason, /built without --with-http_v3_module/)
})

test('HAProxy speaks HTTP/3 when haproxy -vv lists +QUIC; -QUIC or no mention says why not', () => {
  const features = (q: string) => `Feature list : -51DEGREES +ACCEPT4 +BACKTRACE ${q} +SSL +ZLIB\nBuilt with OpenSSL version : OpenSSL 3.5.7`
  assert.equal(h3SupportFrom('haproxy', '3.2.26', features('+QUIC')).capable, true)
  assert.deepEqual(h3SupportFrom('haproxy', '2.6.12', features('-QUIC')), { capable: false, reason: 'built without QUIC (haproxy -vv: -QUIC)' })
  assert.equal(h3SupportFrom('haproxy', '2.4.0', features('')).reason, 'haproxy -vv lists no QUIC feature')
  // A neighbouring feature name does not count (QUIC_OPENSSL_COMPAT is not QUIC itself).
  assert.equal(h3SupportFrom('haproxy', '3.0.0', features('+QUIC_OPENSSL_COMPAT')).capable, false)
  // Debian trixie's 3.0.11: +QUIC, but only through OpenSSL's compatibility layer, which refuses a QUIC bind without limited-quic.
  const compat = h3SupportFrom('haproxy', '3.0.11', `  OPTIONS = USE_OPENSSL=1 USE_QUIC=1 USE_QUIC_OPENSSL_COMPAT=1\n${features('+QUIC')}`)
  assert.equal(compat.capable, false)
  assert.match(compat.reason, /limited-quic/)
})

test('Envoy: the QUIC extension compiled in; Caddy and Traefik by their documented first version', () => {
  assert.equal(h3SupportFrom('envoy', '1.40.0', ENVOY_QUIC_EXTENSION).capable, true)
  assert.match(h3SupportFrom('envoy', '1.40.0', '').reason, /built without QUIC/)
  assert.equal(h3SupportFrom('caddy', '2.6.2', '').capable, true)
  assert.equal(h3SupportFrom('caddy', '2.5.2', '').capable, false)
  assert.equal(h3SupportFrom('traefik', '3.0.4', '').capable, true)
  assert.match(h3SupportFrom('traefik', '2.11.0', '').reason, /older than 3\.0\.0/)
})
