import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { suiteSources } from '../../lib/setup/images/apt-sources.ts'
import { parsePipVersions } from '../../lib/setup/offers.ts'
import { baseSuite, elfInterpreter, parseMadison, resolveInRoot } from '../../lib/setup/suites.ts'

test('a suite root follows its own symlinks: an absolute target stays inside the root (merged /usr)', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-suite-'))
  mkdirSync(join(root, 'usr/lib/x86_64-linux-gnu'), { recursive: true })
  mkdirSync(join(root, 'usr/lib64'), { recursive: true })
  writeFileSync(join(root, 'usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'), '')
  symlinkSync('usr/lib64', join(root, 'lib64'))
  symlinkSync('usr/lib', join(root, 'lib'))
  // Absolute, as Debian ships it: on the host this would name the host's loader.
  symlinkSync('/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2', join(root, 'usr/lib64/ld-linux-x86-64.so.2'))
  assert.equal(resolveInRoot(root, '/lib64/ld-linux-x86-64.so.2'), join(root, 'usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'))
  symlinkSync('/loop', join(root, 'loop'))
  assert.throws(() => resolveInRoot(root, '/loop'), /too many symbolic links/)
})

test('the ELF interpreter of a dynamic binary, none for a non-ELF file', () => {
  assert.match(elfInterpreter(process.execPath) ?? '', /ld-linux|ld-musl/)
  const f = join(mkdtempSync(join(tmpdir(), 'pb-suite-')), 'script')
  writeFileSync(f, '#!/bin/sh\n')
  assert.equal(elfInterpreter(f), null)
})

test('apt sources of a suite: a release gets -updates and -security, sid only itself; experimental starts from sid', () => {
  assert.equal(baseSuite('experimental'), 'sid')
  assert.equal(baseSuite('trixie'), 'trixie')
  assert.equal(suiteSources('sid', 'http://mirror.example/debian/').text, 'deb http://mirror.example/debian sid main\n')
  assert.deepEqual(suiteSources('trixie', 'http://mirror.example/debian').text.trim().split('\n'), [
    'deb http://mirror.example/debian trixie main',
    'deb http://mirror.example/debian trixie-updates main',
    'deb http://mirror.example/debian-security trixie-security main',
  ])
})

test('apt-cache madison and pip index versions output', () => {
  const madison = [
    '     nginx | 1.26.3-3+deb13u11 | http://mirror.example/debian-security trixie-security/main amd64 Packages',
    '     nginx | 1.26.3-3+deb13u10 | http://mirror.example/debian trixie/main amd64 Packages',
    '   haproxy | 3.0.11-1+deb13u5 | http://mirror.example/debian-security trixie-security/main amd64 Packages',
    'W: some warning',
  ].join('\n')
  assert.deepEqual(Object.fromEntries(parseMadison(madison)), { nginx: ['1.26.3-3+deb13u11', '1.26.3-3+deb13u10'], haproxy: ['3.0.11-1+deb13u5'] })
  assert.deepEqual(parsePipVersions('Available versions: 2.11.7, 2.11.4, 2.8.4'), ['2.11.7', '2.11.4', '2.8.4'])
})
