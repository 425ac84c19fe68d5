import { join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { exec, lastLine } from '../core/exec.ts'
import { blankRow } from '../data/columns/derive.ts'
import { ROW_FILES } from '../data/columns/table.ts'
import { ACME_DEFAULT_SERIES, acmeDefaultKeyType, keyTypeWords, parseCertificateText, servedKeyName, type DefaultKeyRow } from '../data/default-keys.ts'
import { rawFile, repeatStem } from '../data/raw-files.ts'
import { waitForPort } from '../roles/net.ts'
import { runToEnd } from '../runtime/run-to-end.ts'
import { withVerifiedStack, type CellPlan, type CellContext, type RunningStack } from './cell.ts'
import { rowWindow } from './rows.ts'

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/
/** Handshakes tried (0.5 s apart) before "no certificate": 10 s, as long as a proxy start may take on a busy machine. */
const HANDSHAKE_TRIES = 20
/** The harness's key-type words (lib/data/default-keys.ts servedKeyName). */
const KEY_WORD = /^(rsa\d+|ec\d+|ed25519)$/

/** How long a binary may take to print its --help. */
const HELP_LIMIT_S = 15

type RowOf = (f: Partial<DefaultKeyRow>) => DefaultKeyRow

/**
 * A default-key cell (tls series, phase tls-default-key): the proxy starts through the normal
 * cell protocol with its `default-cert` template, ready when its port accepts (an HTTPS check
 * would need a CA the harness does not have); then, by the cell's row series, the key it serves
 * (DEFAULT_KEY_SERIES) or the ACME default key type its binary states (ACME_DEFAULT_SERIES).
 */
export async function measureDefaultKey(cell: CellPlan, repeat: number, ctx: CellContext): Promise<DefaultKeyRow> {
  const acme = cell.series === ACME_DEFAULT_SERIES
  const start = { ...blankRow(ROW_FILES['default-keys']), ...rowWindow(cell, repeat, ctx), tool: acme ? `${cell.proxy} --help` : 'openssl s_client' }
  const row: RowOf = (f) => ({ ...start, ...f })
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
    (stack) => (acme ? readAcmeDefault(stack, cell, ctx, row) : readServedKey(stack.url, rawFile(ctx.runDir, name, 's_client.txt'), row)),
    probe,
  )
}

/**
 * The key a proxy serves when its config gives it no certificate: one real TLS handshake with
 * `openssl s_client` (SNI localhost, no verification: the certificate is the proxy's own), then
 * `openssl x509 -text` of the leaf it presented. The raw s_client output is kept in raw/.
 */
async function readServedKey(url: string, raw: string, row: RowOf): Promise<DefaultKeyRow> {
  // A listening port is not yet a TLS listener (Traefik loads its file provider after binding): a few tries.
  let s = await exec('openssl', ['s_client', '-connect', url, '-servername', 'localhost', '-showcerts'], { timeoutMs: 15_000 })
  for (let i = 0; i < HANDSHAKE_TRIES && !PEM.test(s.stdout); i++) {
    await new Promise((r) => setTimeout(r, 500))
    s = await exec('openssl', ['s_client', '-connect', url, '-servername', 'localhost', '-showcerts'], { timeoutMs: 15_000 })
  }
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
}

/**
 * The ACME default key type of the binary under test: the running proxy's own command (its
 * binary, loader, environment and image, on the same runtime) with `--help` added, which
 * prints the flags and exits.
 */
async function readAcmeDefault(stack: RunningStack, cell: CellPlan, ctx: CellContext, row: RowOf): Promise<DefaultKeyRow> {
  const proxy = stack.proxy
  if (!proxy) return row({ status: 'failed', reason: `${cell.proxy} did not start` })
  const help = { ...proxy.spec, name: `${proxy.spec.name}-help`, argv: [...proxy.spec.argv, '--help'], logFile: join(stack.scratch, 'help.txt') }
  const { exit, output } = await runToEnd(ctx.runtime, help, HELP_LIMIT_S)
  return row(acmeDefaultFields(cell.proxy, output, exit ? `exit ${exit.code ?? exit.signal}` : `still running after ${HELP_LIMIT_S} s`))
}

/** A --help output's `acme.keytype` Default as a row's fields, in the harness's words; a failed row when no line states it. */
export function acmeDefaultFields(proxy: string, help: string, ended: string): Partial<DefaultKeyRow> {
  const printed = acmeDefaultKeyType(help)
  if (!printed) return { status: 'failed', reason: `${proxy} --help states no acme.keytype default (${ended}: ${lastLine(help) || 'no output'})` }
  const words = keyTypeWords(printed)
  return KEY_WORD.test(words) ? { served_key: words } : { status: 'invalid', reason: `an ACME key type this harness has no word for (${printed})` }
}
