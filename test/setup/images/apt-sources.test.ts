import assert from 'node:assert/strict'
import { test } from 'node:test'
import { debianSources, mirrorOf } from '../../../lib/setup/images/apt-sources.ts'

test('base image sources: the host Debian entries only, and the mirror for debootstrap', () => {
  const deb822 = `Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\nTypes: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main\n`
  const s = debianSources({
    '/etc/apt/sources.list.d/debian.sources': deb822,
    '/etc/apt/sources.list.d/other.sources': 'Types: deb\nURIs: https://vendor.example/apt\nSuites: x\n',
  })!
  assert.equal(s.name, 'debian.sources')
  assert.equal(s.text.split('\n\n').length, 2)
  assert.equal(mirrorOf(s), 'http://mirror.example/debian')
  const list = debianSources({ '/etc/apt/sources.list.list': 'deb http://m.example/debian bookworm main\n# comment\ndeb https://vendor.example/apt x main\n' })!
  assert.equal(list.text, 'deb http://m.example/debian bookworm main\n')
  assert.equal(mirrorOf(list), 'http://m.example/debian')
  assert.equal(debianSources({}), null)
  assert.equal(mirrorOf(null), undefined)
})
