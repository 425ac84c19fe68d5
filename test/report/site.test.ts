import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { assertNoKeyMaterial, writeRunPage, writeSiteIndex } from '../../lib/report/site.ts'
import { HOSTILE } from '../fixtures/hostile.ts'

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `pb-report-${name}-`))
// Built at runtime so that no file of the repository holds a key header.
const keyHeader = (kind: string) => ['-----BEGIN', `${kind}PRIVATE KEY-----`].join(' ')

test('assertNoKeyMaterial finds a PEM private key by content and key files by name', () => {
  const dir = tmp('keys')
  mkdirSync(join(dir, 'data', 'raw'), { recursive: true })
  writeFileSync(join(dir, 'data', 'measurements.csv'), 'a,b\n1,2\n')
  writeFileSync(join(dir, 'ca.crt.txt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
  assertNoKeyMaterial(dir)
  // large files are read in 1 MiB blocks: one header straddles a block boundary
  for (const [kind, pad] of [
    ['', 10],
    ['RSA ', 1_048_566],
    ['EC ', 2_000_000],
    ['ENCRYPTED ', 5],
    ['OPENSSH ', 1_048_576 - 30],
  ] as const) {
    const file = join(dir, 'data', 'raw', 'notes.log')
    writeFileSync(file, `x`.repeat(pad) + `\n${keyHeader(kind)}\nMHcCAQEE\n`)
    assert.throws(
      () => assertNoKeyMaterial(dir),
      (e) => e instanceof UserError && e.message.includes('notes.log: contains a PEM private key'),
      kind,
    )
  }
  writeFileSync(join(dir, 'data', 'raw', 'notes.log'), 'clean\n')
  for (const name of ['leaf.key', 'ec256-key.pem']) {
    const d = tmp('keyname')
    writeFileSync(join(d, name), 'harmless')
    assert.throws(
      () => assertNoKeyMaterial(d),
      (e) => e instanceof UserError && e.message.includes(`${name}: is named like a private key`),
    )
  }
})

function runFiles(dir: string) {
  return readdirSync(dir, { recursive: true }).map(String).sort()
}

test('writeRunPage swaps the whole run folder in; a failure leaves the old page and no temp files', () => {
  const site = tmp('site')
  const log = memoryLogger()
  const csv = join(tmp('src'), 'measurements.csv')
  writeFileSync(csv, 'proxy,us\nnginx,30\n')
  const first = writeRunPage(
    site,
    {
      runId: 'r-1',
      markdown: '# First\n\nv1 [data](data/measurements.csv)',
      files: [
        { path: 'data/measurements.csv', source: csv },
        { path: 'charts/a.svg', content: '<svg/>' },
      ],
      generated: 'g1',
    },
    log,
  )
  assert.equal(first.href, 'runs/r-1/index.html')
  assert.equal(first.title, 'First')
  const page1 = readFileSync(first.page, 'utf8')
  assert.match(page1, /v1/)
  assert.match(page1, /<a href="..\/..\/index.html">proxybench<\/a>/)
  assert.deepEqual(runFiles(first.dir), ['charts', 'charts/a.svg', 'data', 'data/measurements.csv', 'index.html'])
  const clean = () => assert.deepEqual(readdirSync(join(site, 'runs')), ['r-1'])

  // a missing source: error naming it, old page untouched
  assert.throws(
    () =>
      writeRunPage(
        site,
        { runId: 'r-1', markdown: '# Second\n\nv2', files: [{ path: 'data/measurements.csv', source: join(site, 'nope.csv') }], generated: 'g2' },
        log,
      ),
    (e) => e instanceof UserError && /nope\.csv is missing/.test(e.message),
  )
  assert.equal(readFileSync(first.page, 'utf8'), page1)
  clean()
  // key material in a published file: refused before the swap
  assert.throws(
    () => writeRunPage(site, { runId: 'r-1', markdown: '# S', files: [{ path: 'raw/x.txt', content: keyHeader('') }] }, log),
    (e) => e instanceof UserError && e.message.includes('runs/r-1/raw/x.txt: contains a PEM private key'),
  )
  assert.equal(readFileSync(first.page, 'utf8'), page1)
  clean()
  // a remote image in the Markdown: refused, old page kept
  assert.throws(() => writeRunPage(site, { runId: 'r-1', markdown: '![x](http://e/x.png)', files: [] }, log), UserError)
  assert.equal(readFileSync(first.page, 'utf8'), page1)

  // success replaces the folder as a whole: files of the old run are gone
  const second = writeRunPage(
    site,
    { runId: 'r-1', markdown: '# Second\n\nv2', files: [{ path: 'data/handshakes.csv', content: Buffer.from('a\n1\n') }], generated: 'g2' },
    log,
  )
  assert.match(readFileSync(second.page, 'utf8'), /v2/)
  assert.deepEqual(runFiles(second.dir), ['data', 'data/handshakes.csv', 'index.html'])
  clean()
  assert.ok(log.lines.some((l) => /wrote .*runs\/r-1\/index.html \(1 file\)/.test(l)))

  // an interrupted swap (old folder set aside, new one never moved in) is repaired
  renameSync(second.dir, join(site, 'runs', '.old-r-1.123-abcd1234'))
  mkdirSync(join(site, 'runs', '.tmp-r-1.123-abcd1234'))
  writeRunPage(site, { runId: 'r', markdown: '# Other', files: [] }, log) // "r" is not "r-1"
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['.old-r-1.123-abcd1234', '.tmp-r-1.123-abcd1234', 'r'])
  writeRunPage(site, { runId: 'r-1', markdown: '# Third', files: [] }, log)
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['r', 'r-1'])
  assert.match(readFileSync(join(site, 'runs', 'r-1', 'index.html'), 'utf8'), /Third/)
})

test('the interrupted page comes back before the new one is built', () => {
  const site = tmp('recover')
  const log = memoryLogger()
  const r = writeRunPage(site, { runId: 'r.1', markdown: '# Kept', files: [] }, log)
  renameSync(r.dir, join(site, 'runs', '.old-r.1.99-0123abcd'))
  // a failing publish still puts the old page back first
  assert.throws(() => writeRunPage(site, { runId: 'r.1', markdown: '# New', files: [{ path: 'a.csv', source: join(site, 'missing') }] }, log), UserError)
  assert.match(readFileSync(r.page, 'utf8'), /Kept/)
  assert.deepEqual(readdirSync(join(site, 'runs')), ['r.1'])
})

test('run ids and file paths are checked before anything is written', () => {
  const site = tmp('ids')
  const log = memoryLogger()
  for (const id of ['', '../x', 'a/b', '.hidden', 'a b', 'x'.repeat(200), 'r..1', 'é']) {
    assert.throws(
      () => writeRunPage(site, { runId: id, markdown: '# x', files: [] }, log),
      (e) => e instanceof UserError && e.message.startsWith('run id:'),
      id,
    )
  }
  for (const path of ['../x.csv', '/etc/passwd', 'a//b', 'index.html', 'data/.tmp-x', 'a\\b', '']) {
    assert.throws(() => writeRunPage(site, { runId: 'ok', markdown: '# x', files: [{ path, content: 'x' }] }, log), UserError, path)
  }
  assert.throws(() => writeRunPage(site, { runId: 'ok', markdown: '# x', files: [{ path: 'a.csv' }] }, log), /exactly one of content or source/)
  assert.ok(!existsSync(join(site, 'runs', 'ok')))
})

test('the site index lists runs then baselines with relative, escaped links', () => {
  const site = tmp('index')
  const file = writeSiteIndex(
    site,
    [
      { href: 'baselines/published-2026-08-23/index.html', title: 'Published 2026-08-23', kind: 'baseline' },
      { href: 'runs/r-1/index.html', title: HOSTILE[0], subtitle: HOSTILE[1], date: '2026-11-30', kind: 'run' },
    ],
    memoryLogger(),
    { links: [{ href: 'report.pdf', text: 'Report (PDF)' }], generated: 'g' },
  )
  const html = readFileSync(file, 'utf8')
  assert.ok(html.indexOf('runs/r-1/index.html') < html.indexOf('baselines/published-2026-08-23/index.html'))
  assert.ok(!/<script|<img|https?:\/\//i.test(html))
  assert.match(html, /<a href="report.pdf">Report \(PDF\)<\/a>/)
  assert.throws(() => writeSiteIndex(site, [{ href: 'https://example.com', title: 'x', kind: 'run' }], memoryLogger()), UserError)
  assert.throws(() => writeSiteIndex(site, [{ href: '/runs/x/index.html', title: 'x', kind: 'run' }], memoryLogger()), UserError)
  // A baseline without a page yet is listed, as text.
  const listed = readFileSync(
    writeSiteIndex(site, [{ title: 'baseline b <1>', subtitle: 'a promoted run', kind: 'baseline' }], memoryLogger(), { generated: 'g' }),
    'utf8',
  )
  assert.match(listed, /<li><span class="title">baseline b &lt;1&gt;<\/span><br><span class="subtitle">a promoted run<\/span><\/li>/)
})
