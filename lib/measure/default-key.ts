import { writeFileAtomic } from '../core/atomic.ts'
import { exec, lastLine } from '../core/exec.ts'
import { blankRow } from '../data/columns/derive.ts'
import { ROW_FILES } from '../data/columns/table.ts'
import { parseCertificateText, servedKeyName, type DefaultKeyRow } from '../data/default-keys.ts'
import { rawFile, repeatStem } from '../data/raw-files.ts'
import { waitForPort } from '../roles/net.ts'
import { withVerifiedStack, type CellPlan, type CellContext } from './cell.ts'
import { rowWindow } from './rows.ts'

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/
/** Handshakes tried (0.5 s apart) before "no certificate": 10 s, as long as a proxy start may take on a busy machine. */
const HANDSHAKE_TRIES = 20

/**
 * The key a proxy serves when its config gives it no certificate (a `default-cert` variant):
 * one real TLS handshake with `openssl s_client` (SNI localhost, no verification: the
 * certificate is the proxy's own), then `openssl x509 -text` of the leaf it presented. The
 * proxy is ready when its port accepts (an HTTPS check would need a CA the harness does not
 * have). The raw s_client output is kept in raw/ (<stem>.s_client.txt).
 */
export async function measureDefaultKey(cell: CellPlan, repeat: number, ctx: CellContext): Promise<DefaultKeyRow> {
  const start = { ...blankRow(ROW_FILES['default-keys']), ...rowWindow(cell, repeat, ctx), tool: 'openssl s_client' }
  const row = (f: Partial<DefaultKeyRow>): DefaultKeyRow => ({ ...start, ...f })
  const name = repeatStem(cell, repeat)
  const probe = {
    backendPort: (b: { port: number }) => b.port,
    ready: waitForPort,
    url: (host: string, port: number) => `${host}:${port}`,
    verify: async () => null,
    echo: false,
  }
  return withVerifiedStack(
    cell,
    name,
    ctx,
    { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) },
    async ({ url }) => {
      // A listening port is not yet a TLS listener (Traefik loads its file provider after binding): a few tries.
      let s = await exec('openssl', ['s_client', '-connect', url, '-servername', 'localhost', '-showcerts'], { timeoutMs: 15_000 })
      for (let i = 0; i < HANDSHAKE_TRIES && !PEM.test(s.stdout); i++) {
        await new Promise((r) => setTimeout(r, 500))
        s = await exec('openssl', ['s_client', '-connect', url, '-servername', 'localhost', '-showcerts'], { timeoutMs: 15_000 })
      }
      const raw = rawFile(ctx.runDir, name, 's_client.txt')
      writeFileAtomic(raw, s.stdout + s.stderr)
      const pem = PEM.exec(s.stdout)?.[0]
      if (!pem) return row({ status: 'failed', reason: `no certificate in the handshake: ${lastLine(s.stderr) || `openssl s_client exit ${s.code}`}` })
      // The leaf on stdin: no scratch file.
      const x = await exec('openssl', ['x509', '-noout', '-text'], { input: pem + '\n', timeoutMs: 15_000 })
      const k = x.code === 0 ? parseCertificateText(x.stdout) : null
      if (!k) return row({ status: 'failed', reason: `openssl x509 could not read the served certificate: ${lastLine(x.stderr)}` })
      const served = servedKeyName(k)
      return row({
        served_key: served,
        key_algorithm: k.algorithm,
        key_bits: k.bits,
        curve: k.curve,
        subject: k.subject,
        issuer: k.issuer,
        ...(served ? {} : { status: 'invalid', reason: `a key this harness has no word for (${k.algorithm} ${k.bits ?? '?'} ${k.curve})` }),
      })
    },
    probe,
  )
}
