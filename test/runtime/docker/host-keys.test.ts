import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  blobKeyType,
  fingerprintOf,
  hostFieldMatches,
  hostKeyVerifier,
  judgeHostKey,
  knownHostsEntry,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
  readKnownHosts,
  type HostKeyRefusal,
} from '../../../lib/runtime/docker/host-keys.ts'

// Real keys from ssh-keygen, and hashed entries as OpenSSH itself writes them (ssh-keygen -H):
// the parsing and matching are checked against OpenSSH's own output, not against themselves.
const dir = mkdtempSync(join(tmpdir(), 'pb-hostkeys-unit-'))
const keygen = (type: string, name: string) => {
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-f', join(dir, name)])
  const [t, b64] = readFileSync(join(dir, `${name}.pub`), 'utf8')
    .trim()
    .split(/\s+/)
  return { type: t!, b64: b64!, blob: Buffer.from(b64!, 'base64'), pub: join(dir, `${name}.pub`) }
}
const ed = keygen('ed25519', 'ed')
const ed2 = keygen('ed25519', 'ed2')
const rsa = keygen('rsa', 'rsa')
const ec = keygen('ecdsa', 'ec')

test('fingerprint and key type of a blob are what ssh-keygen -l prints', () => {
  for (const k of [ed, rsa, ec]) {
    const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', k.pub], { encoding: 'utf8' }).split(' ')[1]
    assert.equal(fingerprintOf(k.blob), printed)
    assert.equal(blobKeyType(k.blob), k.type)
  }
  assert.equal(blobKeyType(Buffer.from([0, 0])), 'unknown')
})

test('known_hosts lines: comments, blanks and broken lines skipped, markers read, line numbers kept', () => {
  const text = `# comment\n\nh1 ${ed.type} ${ed.b64}\n@revoked h2 ${rsa.type} ${rsa.b64}\nh3 ssh-ed25519\n@cert-authority *.example.com ${ec.type} ${ec.b64}\nh4 ssh-ed25519 not*base64\n`
  const lines = parseKnownHosts(text, 'f')
  assert.deepEqual(
    lines.map((l) => [l.line, l.marker, l.hosts, l.keyType]),
    [
      [3, '', 'h1', ed.type],
      [4, '@revoked', 'h2', rsa.type],
      [6, '@cert-authority', '*.example.com', ec.type],
    ],
  )
  assert.ok(lines[0]!.key.equals(ed.blob))
})

test('host patterns: lists, [host]:port off port 22, wildcards, negation, case; hashed entries as ssh-keygen -H writes them', () => {
  assert.ok(hostFieldMatches('h0,h1,10.0.0.1', 'h1', 22))
  assert.ok(hostFieldMatches('H1', 'h1', 22), 'case-insensitive')
  assert.ok(!hostFieldMatches('h1', 'h1', 2222), 'port 2222 is looked up as [h1]:2222')
  assert.ok(hostFieldMatches('[h1]:2222', 'h1', 2222))
  assert.ok(!hostFieldMatches('[h1]:2222', 'h1', 22))
  assert.ok(hostFieldMatches('*.example.com', 'a.example.com', 22))
  assert.ok(!hostFieldMatches('*.example.com', 'example.com', 22))
  assert.ok(hostFieldMatches('10.0.0.?', '10.0.0.7', 22))
  assert.ok(!hostFieldMatches('*.example.com,!bad.example.com', 'bad.example.com', 22), 'a negated match wins')
  assert.ok(!hostFieldMatches('h1.b', 'h1xb', 22), 'a dot is a dot')
  // OpenSSH's own hashing of `h1` and of `[h1]:2222`.
  const file = join(dir, 'hashed')
  writeFileSync(file, `h1 ${ed.type} ${ed.b64}\n[h1]:2222 ${rsa.type} ${rsa.b64}\n`)
  execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' })
  const [plain22, plain2222] = parseKnownHosts(readFileSync(file, 'utf8'), file)
  assert.match(plain22!.hosts, /^\|1\|/)
  assert.ok(hostFieldMatches(plain22!.hosts, 'h1', 22))
  assert.ok(hostFieldMatches(plain22!.hosts, 'H1', 22))
  assert.ok(!hostFieldMatches(plain22!.hosts, 'h2', 22))
  assert.ok(!hostFieldMatches(plain22!.hosts, 'h1', 2222))
  assert.ok(hostFieldMatches(plain2222!.hosts, 'h1', 2222))
  assert.equal(judgeHostKey(rsa.blob, 'h1', 2222, readKnownHosts([file])).kind, 'known')
})

test('verdicts: known, changed (same type, other key), other types only, revoked, unknown; a pin decides alone', () => {
  const lines = parseKnownHosts(`h1 ${ed.type} ${ed.b64}\nh2 ${rsa.type} ${rsa.b64}\n@revoked * ${ed2.type} ${ed2.b64}\n`, 'kh')
  assert.deepEqual(judgeHostKey(ed.blob, 'h1', 22, lines), { kind: 'known', file: 'kh', line: 1 })
  const changed = judgeHostKey(ed.blob, 'h1', 22, parseKnownHosts(`h1 ${ed.type} ${ed2.b64}\n`, 'kh'))
  assert.deepEqual(changed, { kind: 'changed', file: 'kh', line: 1, known: fingerprintOf(ed2.blob) })
  assert.deepEqual(judgeHostKey(ed.blob, 'h2', 22, lines), { kind: 'other-types', file: 'kh', line: 2, types: [rsa.type] })
  assert.deepEqual(judgeHostKey(ed2.blob, 'h1', 22, lines), { kind: 'revoked', file: 'kh', line: 3 })
  assert.deepEqual(judgeHostKey(ed.blob, 'h3', 22, lines), { kind: 'unknown' })
  assert.deepEqual(judgeHostKey(ed.blob, 'h1', 2222, lines), { kind: 'unknown' }, 'another port is another host')
  // A @cert-authority line is no host key.
  assert.deepEqual(judgeHostKey(ec.blob, 'a.example.com', 22, parseKnownHosts(`@cert-authority *.example.com ${ec.type} ${ec.b64}\n`, 'kh')), {
    kind: 'unknown',
  })
  const fp = fingerprintOf(ed.blob)
  assert.deepEqual(judgeHostKey(ed.blob, 'h9', 22, [], fp), { kind: 'pinned' })
  assert.deepEqual(judgeHostKey(ed.blob, 'h9', 22, [], `${fp}=`), { kind: 'pinned' }, 'padding or not')
  assert.deepEqual(judgeHostKey(ed2.blob, 'h1', 22, lines, fp), { kind: 'pin-mismatch', pinned: fp }, 'known_hosts does not override a pin')
})

test('the verifier: a refusal in one line naming host, fingerprint and fix; accept-new records a plain entry once, and never accepts a changed key', () => {
  const file = join(dir, 'accept', 'known_hosts')
  const refusals: HostKeyRefusal[] = []
  const verify = (acceptNew: boolean, port = 22, files = [file]) =>
    hostKeyVerifier({ url: 'ssh://h1', host: 'h1', port, policy: { knownHosts: files, acceptNew }, onRefuse: (r) => refusals.push(r) })
  assert.equal(verify(false)(ed.blob), false)
  const line = `${refusals[0]!.what}. ${refusals[0]!.fix}`
  assert.ok(!line.includes('\n'))
  assert.match(
    line,
    new RegExp(
      `^ssh://h1 offers host key ${fingerprintOf(ed.blob).replace(/[+/]/g, '\\$&')} \\(ssh-ed25519\\), which ${file} does not list\\. .*--accept-new-host-keys.*ssh-keyscan -t ed25519 h1 >> ${file}`,
    ),
  )
  // accept-new: recorded (the directory made), then known.
  assert.equal(verify(true)(ed.blob), true)
  assert.equal(readFileSync(file, 'utf8'), `h1 ${ed.type} ${ed.b64}\n`)
  assert.equal(verify(false)(ed.blob), true)
  // A changed key is refused even with accept-new, and nothing is appended.
  assert.equal(verify(true)(ed2.blob), false)
  assert.match(refusals.at(-1)!.what, new RegExp(`but ${file}:1 lists ${fingerprintOf(ed.blob).replace(/[+/]/g, '\\$&')} for it`))
  assert.match(refusals.at(-1)!.fix, /ssh-keygen -R h1 -f /)
  assert.equal(readFileSync(file, 'utf8').split('\n').length, 2)
  // Another port, recorded as [h1]:2222; a file without a final newline gets one first.
  writeFileSync(file, `h1 ${ed.type} ${ed.b64}`)
  assert.equal(verify(true, 2222)(rsa.blob), true)
  assert.equal(readFileSync(file, 'utf8'), `h1 ${ed.type} ${ed.b64}\n[h1]:2222 ${rsa.type} ${rsa.b64}\n`)
  assert.equal(knownHostsEntry('H1', 2222, rsa.blob), `[h1]:2222 ${rsa.type} ${rsa.b64}\n`)
})

test('host key algorithms: the types on record for the host are asked for first', () => {
  const lines = parseKnownHosts(`h1 ${rsa.type} ${rsa.b64}\nh2 ${ec.type} ${ec.b64}\n`, 'kh')
  assert.deepEqual(preferredHostKeyAlgorithms(lines, 'h1', 22).slice(0, 3), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'])
  assert.equal(preferredHostKeyAlgorithms(lines, 'h2', 22)[0], 'ecdsa-sha2-nistp256')
  assert.equal(preferredHostKeyAlgorithms(lines, 'h3', 22)[0], 'ssh-ed25519')
  assert.equal(new Set(preferredHostKeyAlgorithms(lines, 'h1', 22)).size, 7)
})
