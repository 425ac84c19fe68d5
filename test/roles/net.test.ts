import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { test } from 'node:test'
import { waitForEcho } from '../../lib/roles/net.ts'

const listen = (onConn: Parameters<typeof createServer>[1]): Promise<{ srv: Server; port: number }> =>
  new Promise((resolve) => {
    const srv = createServer(onConn!)
    srv.listen(0, '127.0.0.1', () => resolve({ srv, port: (srv.address() as { port: number }).port }))
  })

test('waitForEcho: ready once a message comes back through the port', async () => {
  const { srv, port } = await listen((c) => c.pipe(c))
  try {
    await waitForEcho(port, { timeoutMs: 5000, what: 'echo' })
  } finally {
    srv.close()
  }
})

test('waitForEcho: a listener that accepts but never echoes is not ready; an exited process fails at once', async () => {
  // Traefik accepts before its routers load: accepting is not enough.
  const { srv, port } = await listen((c) => c.end())
  try {
    await assert.rejects(waitForEcho(port, { timeoutMs: 300, what: 'mute' }), /mute did not echo through 127\.0\.0\.1:\d+ within 0\.3 s/)
    const exited = Promise.resolve({ code: 1, signal: null })
    await assert.rejects(
      waitForEcho(port, { timeoutMs: 60_000, what: 'proxy', exited, tls: { ca: '/dev/null' } }),
      /proxy exited \(code 1\) before echoing on TLS on 127\.0\.0\.1/,
    )
  } finally {
    srv.close()
  }
})
