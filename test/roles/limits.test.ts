import assert from 'node:assert/strict'
import { test } from 'node:test'
import { connectionLimit, overConnectionLimit } from '../../lib/roles/limits.ts'

const files = (nofile: string, range: string) => (f: string) =>
  f.endsWith('limits') ? `Limit Soft Limit Hard Limit Units\nMax open files            ${nofile}                ${nofile}                files\n` : `${range}\n`

test('the connection limit is the smaller of half the descriptors (less a margin) and the ephemeral ports', () => {
  assert.equal(connectionLimit(files('20000', '32768\t60999')).max, 9936)
  const fds = connectionLimit(files('1024', '32768\t60999'))
  assert.equal(fds.max, 448)
  assert.match(fds.why, /ulimit -n is 1024.*at most 448 clients/)
  const ports = connectionLimit(files('1000000', '50000\t50999'))
  assert.equal(ports.max, 1000)
  assert.match(ports.why, /port range 50000-50999 has 1000 ports/)
  assert.equal(connectionLimit(files('unlimited', '32768\t60999')).max, 28232)
})

test('a count within the limit passes, one above it is a reason', () => {
  const limit = connectionLimit(files('1024', '32768\t60999'))
  assert.equal(overConnectionLimit(448, limit), null)
  assert.match(overConnectionLimit(2000, limit)!, /^2000 connections do not fit this machine: ulimit -n is 1024/)
})
