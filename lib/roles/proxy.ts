import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { binaryEnv, binaryPath, variantScheme, type Stack, type StackVersion } from '../catalog/stack.ts'
import { safeVariant } from '../data/raw-files.ts'
import type { CertFiles } from '../setup/certs.ts'
import { userError } from '../core/errors.ts'
import { exec, lastLine } from '../core/exec.ts'
import { freePort, waitForHttps, type ReadyOptions } from './net.ts'
import { displayPath } from '../core/paths.ts'
import { LOOPBACK, reachHost } from '../runtime/network.ts'
import type { Runtime, RunningRole } from '../runtime/types.ts'
import { COMMAND_NAMES, renderTemplate, TEMPLATE_NAMES, type TemplateVars } from '../catalog/template.ts'
import { launchPrefix } from '../setup/suites.ts'
import { dockerClient } from '../setup/docker-engine.ts'
import { OFFICIAL_BINARY } from '../setup/images/names.ts'
import { pullImage } from '../setup/images/pull.ts'
import { memoryLogger } from '../core/log.ts'

export interface ProxyPlan {
  stack: Stack
  version: StackVersion
  /** Built-in variant name or `custom:<file name>`. */
  variant: string
  /** Template to render: the variant's, or a user's own config. */
  template: string
  certs: CertFiles
  backend: { host: string; port: number }
  /** Address to listen on (`listen_host`): loopback, or 0.0.0.0 in a bridged container (lib/runtime/network.ts). */
  listenHost?: string
  threads: number
  /** Private, writable directory of this instance: rendered config, pid, temp files, log. */
  runDir: string
  /**
   * Where the run keeps the rendered config (results/<run>/configs/…): a config the checker
   * rejects is copied there and named in the error, never left in a temp folder deleted right after.
   */
  keepCopy?: string
  /** The checker already accepted this template for this version and variant (lib/measure/cell.ts checkTemplates): not run again. */
  checked?: boolean
  /**
   * A registry image of this version (a bisect over published tags): the Docker runtime runs
   * it with the binary at the official image's path; there is no host binary to check the
   * config with, so starting it is the check.
   */
  image?: string
  /** Another build of this version than the catalog's (a then side, lib/setup/then-builds.ts): its binary, environment and loader. */
  build?: ProxyBuild
  /** Run under a counting tool (a work cell, lib/measure/work.ts): the native runtime only. */
  counted?: CountedRun
}

/** How a work cell runs its proxy: under a tool (callgrind), with its environment, one worker and its stack's config edits. */
export interface CountedRun {
  /** The tool's command, put before the proxy's (and before a suite's loader). */
  prefix: string[]
  env: Record<string, string>
  threads: number
  /** Literal replacements in the rendered config (stack.yaml `work.config_edits`), each of which must match. */
  edits: readonly { from: string; to: string }[]
  /** How long a proxy under the tool may take to answer its first request. */
  readyTimeoutMs: number
}

/** A proxy binary as it runs: the file, the environment it needs (vendored libraries) and what goes before it (a suite's loader). */
export interface ProxyBuild {
  binary: string
  env: Record<string, string>
  launcher: string[]
}

export interface PreparedProxy {
  plan: ProxyPlan
  configFile: string
  listenPort: number
  argv: string[]
  env: Record<string, string>
  /** What runs before argv on the host (checker, native runtime): a `debian:<suite>` version's own loader; [] otherwise. */
  launcher: string[]
}

/** Renders the config and the command line, then runs the proxy's own checker. */
export async function prepareProxy(plan: ProxyPlan): Promise<PreparedProxy> {
  mkdirSync(plan.runDir, { recursive: true })
  const listenPort = await freePort()
  const vars: TemplateVars = {
    listen_port: listenPort,
    listen_host: plan.listenHost ?? LOOPBACK,
    backend_host: plan.backend.host,
    backend_port: plan.backend.port,
    cert: plan.certs.cert,
    key: plan.certs.key,
    pem: plan.certs.pem,
    threads: plan.threads,
    run_dir: plan.runDir,
    admin_port: await freePort(),
  }
  const configFile = join(plan.runDir, `${safeVariant(plan.variant)}.${plan.stack.config_ext}`)
  writeFileSync(configFile, countedEdits(renderTemplate(readFileSync(plan.template, 'utf8'), vars, displayPath(plan.template)), plan))

  const stackYaml = `stacks/${plan.stack.proxy}/stack.yaml`
  const { proxy } = plan.stack
  const build = plan.build ?? { binary: binaryPath(proxy, plan.version), env: binaryEnv(proxy, plan.version), launcher: launchPrefix(proxy, plan.version) }
  const cmdVars = { ...vars, binary: plan.image ? OFFICIAL_BINARY[plan.stack.proxy] : build.binary, config: configFile }
  const names = [...TEMPLATE_NAMES, ...COMMAND_NAMES]
  const argv = [...plan.stack.start, ...(plan.stack.variants[plan.variant]?.args ?? [])].map((a) => renderTemplate(a, cmdVars, stackYaml, names))
  const env = {
    ...(plan.image ? {} : build.env),
    ...Object.fromEntries(Object.entries(plan.stack.env).map(([k, v]) => [k, renderTemplate(v, cmdVars, stackYaml, names)])),
    ...plan.counted?.env,
  }
  // Only the version's own binary goes through a suite's loader (a stack may start or check through another command).
  const suiteLoader = build.launcher
  const launch = (cmd: string[]) => (cmd[0] === cmdVars.binary ? [...suiteLoader, ...cmd] : cmd)
  const prepared = { plan, configFile, listenPort, argv, env, launcher: argv[0] === cmdVars.binary ? suiteLoader : [] }

  if (plan.stack.validate && !plan.checked && !plan.image) {
    const [cmd, ...args] = launch(plan.stack.validate.map((a) => renderTemplate(a, cmdVars, stackYaml, names)))
    const r = await exec(cmd!, args, { env, cwd: plan.runDir, timeoutMs: 60_000 })
    if (r.code !== 0) {
      const copy = keepRejected(configFile, plan.keepCopy)
      throw userError(
        displayPath(plan.template),
        `${plan.stack.proxy} ${plan.version.version} rejects the rendered config (${checkerError((r.stderr + r.stdout).replaceAll(configFile, displayPath(copy))) || `exit ${r.code}`})`,
        `Fix the config; the rendered copy is ${displayPath(copy)}`,
      )
    }
  }
  return prepared
}

/** The rendered config with a work cell's edits (stack.yaml `work.config_edits`); an edit that matches nothing is an error, never a silent no-op. */
export function countedEdits(config: string, plan: Pick<ProxyPlan, 'counted' | 'stack'>): string {
  let out = config
  for (const e of plan.counted?.edits ?? []) {
    if (!out.includes(e.from))
      throw userError(
        `stacks/${plan.stack.proxy}/stack.yaml`,
        `work.config_edits: "${e.from}" is not in the rendered config`,
        'Edit a line every template of the proxy has',
      )
    out = out.replaceAll(e.from, e.to)
  }
  return out
}

/** A registry image (a bisect over published tags) on the Docker runtime, pulled the first time a cell needs it. */
async function ensureImage(runtime: Runtime, image: string): Promise<void> {
  if (runtime.kind !== 'docker') throw new Error(`${image}: a registry image runs on the docker runtime only (--runtime docker)`)
  const present = await dockerClient()
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    )
  if (!present) await pullImage(image, memoryLogger())
}

/** The checker's first error lines (its notices and warnings skipped), or its last line. */
export function checkerError(output: string, n = 2): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const errors = lines.filter((l) => /alert|emerg|error|invalid|unknown|fatal|fail|not allowed|unexpected/i.test(l) && !/^\[?(notice|warning)\]?/i.test(l))
  return errors.length ? errors.slice(0, n).join(' | ') : lastLine(output)
}

/** The rendered config copied to `keep` (kept when already there); the path a user can open afterwards. */
export function keepRejected(configFile: string, keep: string | undefined): string {
  if (!keep) return configFile
  mkdirSync(dirname(keep), { recursive: true })
  if (!existsSync(keep)) copyFileSync(configFile, keep)
  return keep
}

/** A proxy that never answered: the port its config was told to use and its last log lines. */
export function neverAnswered(message: string, listenPort: number, log: string): string {
  const tail = log
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-3)
    .join(' | ')
  return `${message} (its config was told {{listen_port}} = ${listenPort}; a config that listens elsewhere is never reached); last log lines: ${tail || '(empty)'}`
}

/**
 * Starts a prepared proxy on the runtime and waits until it answers through TLS (trusting
 * `ca`) where it is reached: loopback, or its container's address on a bridged runtime.
 */
export async function startProxy(
  runtime: Runtime,
  p: PreparedProxy,
  cpus: string,
  ca: string,
  ready?: (port: number, o: ReadyOptions) => Promise<void>,
): Promise<RunningRole> {
  // The listen port tells apart two proxies of one version and config running at once (a pair at one instant, --pair-same).
  const name = `proxy-${p.plan.stack.proxy}-${p.plan.version.version}-${basename(p.configFile)}-${p.listenPort}`
  // A container has the suite's own root (its image); only the host needs the suite's loader.
  if (p.plan.counted && runtime.kind !== 'native') throw new Error(`a counted proxy runs on the native runtime only, not ${runtime.kind}`)
  const argv = runtime.kind === 'native' ? [...(p.plan.counted?.prefix ?? []), ...p.launcher, ...p.argv] : p.argv
  if (p.plan.image) await ensureImage(runtime, p.plan.image)
  const role = await runtime.start({
    role: 'proxy',
    name,
    argv,
    env: p.env,
    cpus,
    logFile: join(p.plan.runDir, 'proxy.log'),
    cwd: p.plan.runDir,
    ...(p.plan.image ? { image: p.plan.image } : {}),
  })
  try {
    const o = {
      host: reachHost(runtime, role),
      timeoutMs: p.plan.counted?.readyTimeoutMs ?? 30_000,
      exited: role.exited,
      what: `${p.plan.stack.proxy} ${p.plan.version.version} ${p.plan.variant}`,
    }
    // An L4 cell passes its own check (an echo through the proxy); the others answer HTTPS.
    await (ready ? ready(p.listenPort, o) : waitForHttps(p.listenPort, { ...o, ca, scheme: variantScheme(p.plan.stack, p.plan.variant) }))
  } catch (e) {
    await runtime.stop(role)
    const logFile = join(p.plan.runDir, 'proxy.log')
    throw new Error(neverAnswered((e as Error).message, p.listenPort, existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''))
  }
  return role
}
