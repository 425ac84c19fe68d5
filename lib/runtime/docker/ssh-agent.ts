import { Agent } from 'node:http'
import type { Duplex } from 'node:stream'
import { Client, type ConnectConfig } from 'ssh2'

/*
 * An HTTP agent that reaches a remote engine over one SSH connection, kept open, each socket
 * a `docker system dial-stdio` on it, and sockets kept alive between requests. docker-modem's
 * own ssh agent opens a new SSH connection (key exchange, a dial-stdio process) per request:
 * over a second per CPU read, so a window's snapshot landed after the load had ended.
 */
/** What http.Agent calls on a kept-alive socket and an SSH channel lacks: no-ops (the SSH connection has its own keepalive). */
function asSocket(stream: Duplex): Duplex {
  const s = stream as Duplex & Record<string, unknown>
  for (const m of ['setKeepAlive', 'setNoDelay', 'setTimeout', 'ref', 'unref']) if (typeof s[m] !== 'function') s[m] = () => s
  return s
}

export function sshEngineAgent(config: ConnectConfig): Agent {
  let ready: Promise<Client> | undefined
  const connect = (): Promise<Client> => {
    ready ??= new Promise<Client>((resolve, reject) => {
      const c = new Client()
      c.once('ready', () => resolve(c))
      c.once('error', (e) => {
        ready = undefined
        reject(e)
      })
      c.once('close', () => (ready = undefined))
      c.connect(config)
    })
    return ready
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  // Node's Agent accepts a callback-style createConnection; the types only list the sync form.
  ;(agent as unknown as { createConnection: (o: unknown, cb: (e: Error | null, s?: Duplex) => void) => undefined }).createConnection = (_o, cb) => {
    connect().then(
      (c) => c.exec('docker system dial-stdio', (err, stream) => (err ? cb(err) : cb(null, asSocket(stream as unknown as Duplex)))),
      (e: Error) => cb(e),
    )
    return undefined
  }
  // The connection must not keep the harness alive once the run is over.
  const destroy = agent.destroy.bind(agent)
  agent.destroy = () => {
    destroy()
    void ready?.then(
      (c) => c.end(),
      () => {},
    )
  }
  return agent
}
