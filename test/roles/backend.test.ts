import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { test } from 'node:test'
import { backendStats } from '../../lib/roles/backend.ts'

// A listening socket that never accepts, its one-place queue already taken: the kernel drops
// every further SYN, so a connect waits as it does for a port pair still in TIME_WAIT.
const FULL_QUEUE = `
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)
c = socket.create_connection(s.getsockname())
c2 = socket.socket(); c2.setblocking(False)
try: c2.connect(s.getsockname())
except BlockingIOError: pass
print(s.getsockname()[1], flush=True)
time.sleep(60)
`

test('a stats read that cannot connect gives up after its tries, in seconds, not the kernel minute', { timeout: 30_000 }, async () => {
  const py = spawn('python3', ['-c', FULL_QUEUE], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const [line] = (await once(py.stdout, 'data')) as [Buffer]
    const port = Number(line.toString().trim())
    const t0 = Date.now()
    await assert.rejects(backendStats({ host: '127.0.0.1', port }), /backend \/__stats: not connected within 1000 ms/)
    const s = (Date.now() - t0) / 1000
    assert.ok(s >= 4 && s < 15, `${s} s`)
  } finally {
    py.kill()
  }
})
