import assert from 'node:assert/strict'
import { test } from 'node:test'
import { countTimeWait, parsePidStat, procStartTime, timeWaitSockets } from '../../lib/runtime/proc.ts'

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode'
const socket = (state: string) => `   0: 0100007F:9BE1 0200007F:1F90 ${state} 00000000:00000000 03:00000F5B 00000000     0        0 0 3 0000000000000000`

test('TIME_WAIT sockets are the lines in state 06 of /proc/<pid>/net/tcp and tcp6, of that process’s namespace', () => {
  assert.equal(countTimeWait([HEADER, socket('06'), socket('01'), socket('0A'), socket('06'), ''].join('\n')), 2)
  const files: Record<string, string> = {
    '/proc/7/net/tcp': [HEADER, socket('06')].join('\n'),
    '/proc/7/net/tcp6': [HEADER, socket('06'), socket('06')].join('\n'),
  }
  const read = (f: string) => {
    if (!(f in files)) throw new Error(`ENOENT ${f}`)
    return files[f]!
  }
  assert.equal(timeWaitSockets(7, read), 3)
  // No IPv6 in the kernel: IPv4 alone; the process gone: unknown.
  delete files['/proc/7/net/tcp6']
  assert.equal(timeWaitSockets(7, read), 1)
  assert.equal(timeWaitSockets(8, read), null)
  assert.equal(timeWaitSockets(0, read), null)
  assert.equal(typeof timeWaitSockets(process.pid), 'number')
})

// A real /proc/<pid>/stat line (a command with a space and parentheses in its name).
const STAT =
  '4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 1200 0 0 0 150 30 0 0 20 0 1 0 9000 1000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0'

test('parsePidStat: the command between the outer parentheses, ppid, utime+stime, the last CPU', () => {
  assert.deepEqual(parsePidStat(STAT), { pid: 4242, ppid: 1, command: 'my (odd) cmd', ticks: 180, cpu: 1, start: 9000 })
  assert.equal(parsePidStat('garbage'), null)
})

test('parsePidStat: the command between the outer parentheses, ppid, utime+stime, start, the last CPU; procStartTime reads it', () => {
  assert.deepEqual(parsePidStat(STAT), { pid: 4242, ppid: 1, command: 'my (odd) cmd', ticks: 180, cpu: 1, start: 9000 })
  assert.equal(parsePidStat('garbage'), null)
  assert.match(procStartTime(process.pid) ?? '', /^\d+$/)
  assert.equal(procStartTime(0), null)
})
