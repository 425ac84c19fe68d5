#!/usr/bin/env zx
// Step 02: the images of the Docker runtime. Offline: a debootstrap base and one image per
// catalog version from stacks/<component>/Dockerfile; official: the tags of stack.yaml,
// pulled. Starts the engine first when it does not answer (as root).
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { PROXIES, parseProxyList } = await import('../lib/catalog/stack.ts')
const { ensureDockerEngine } = await import('../lib/setup/docker-engine.ts')
const { ensureImages } = await import('../lib/setup/images/ensure.ts')
const { IMAGE_MODES } = await import('../lib/setup/images/names.ts')
const { acquireStepLock } = await import('../lib/run/lock.ts')
const { userError } = await import('../lib/core/errors.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { formatTable } = await import('../lib/core/text-table.ts')

const FLAGS = flagTable({
  ...commonFlags({
    images: {
      default: 'auto',
      more: [
        'offline builds a Debian bookworm base from debootstrap (about 30 s once, cached) and one',
        'image per version that installs the Debian package or copies the cached binary to the',
        'same path as on the host; official still builds the backend and generator',
      ],
    },
    proxies: 'all five',
  }),
  newest: { type: 'boolean', help: ['only the newest catalog version of each proxy'] },
  ...commonFlags({ force: { more: ['offline images, rebuilt even when their inputs did not change'] }, json: undefined }),
})

const HELP = `Usage: npx zx notebooks/02-stacks.mjs [options]

Prepares the Docker images the docker runtime (--runtime docker) starts: one per proxy
catalog version, plus the Go backend and the generator (wrk + loadgen). Starts dockerd
when /var/run/docker.sock does not answer (root only; log in ~/.cache/proxybench/dockerd.log).
Prints component, version, image, id and status, and records the ids in
~/.cache/proxybench/images/images.json, where the runtime looks them up. Takes the machine's
run lock (docs/reliability.md#the-run-lock): refused while a run measures.

Options:
${flagHelp(FLAGS, { column: 19 })}

Exit status: 0 when every image is usable, 1 when one failed, 2 on bad flags or no engine.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('02-stacks.mjs'), FLAGS, HELP, 'notebooks/02-stacks.mjs')
  const given = flags.images ?? 'auto'
  const mode = IMAGE_MODES.find((m) => m === given)
  if (!mode) throw userError('--images', `unknown mode "${given}"`, `Use one of: ${IMAGE_MODES.join(', ')}`)
  const log = consoleLogger()
  const proxies = flags.proxies !== undefined ? parseProxyList(flags.proxies) : PROXIES
  // Rebuilt images and a restarted engine under a running measurement would spoil it (inside one, its lock is re-used).
  const release = await acquireStepLock('notebooks/02-stacks.mjs')
  try {
    const engine = await ensureDockerEngine(log)
    log.info(
      `docker ${engine.version} (API ${engine.apiVersion}), storage ${engine.storageDriver}, cgroup v${engine.cgroupVersion}${engine.started ? ', started now' : ''}`,
    )
    const t0 = Date.now()
    const result = await ensureImages({ mode, proxies, newestOnly: flags.newest, force: flags.force, log })
    const rows = result.rows.map((r) => ({
      ...r,
      id: r.id.replace(/^sha256:/, '').slice(0, 12),
      seconds: r.seconds.toFixed(1),
      digest: r.digest ?? '',
      note: r.note ?? '',
    }))
    if (flags.json) process.stdout.write(JSON.stringify(result.rows, null, 2) + '\n')
    else {
      log.info(`images: ${result.mode} (${result.reason}), ${((Date.now() - t0) / 1000).toFixed(0)} s`)
      const columns = ['component', 'version', 'image', 'id', 'status', 'seconds', ...(result.mode === 'official' ? ['digest'] : []), 'note']
      process.stdout.write(formatTable(rows, columns) + '\n')
    }
    for (const r of result.rows.filter((r) => r.status === 'failed')) log.warn(`${r.component} ${r.version}: ${r.note}`)
    return result.rows.every((r) => r.status !== 'failed') ? 0 : 1
  } finally {
    await release()
  }
})
