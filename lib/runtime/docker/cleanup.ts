import { dockerClient } from '../../setup/docker-engine.ts'
import { consoleLogger, type Logger } from '../../core/log.ts'
import { cleanupStaleCopies } from '../key-copies.ts'
import { harnessGone, LABEL_RUN } from './labels.ts'

/**
 * Removes containers, networks and key copies of earlier runs whose harness is gone
 * (kill -9, crash). Returns the number of containers removed.
 */
export async function cleanupStaleContainers(log: Logger = consoleLogger(), docker = dockerClient()): Promise<number> {
  let removed = 0
  const containers = await docker.listContainers({ all: true, filters: { label: [LABEL_RUN] } })
  for (const c of containers.filter((c) => harnessGone(c.Labels))) {
    try {
      await docker.getContainer(c.Id).remove({ force: true, v: true })
      removed++
      log.warn(`removed container ${c.Names[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12)} left by run ${c.Labels[LABEL_RUN]}`)
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 404) throw e
    }
  }
  const networks = await docker.listNetworks({ filters: { label: [LABEL_RUN] } })
  for (const n of networks.filter((n) => harnessGone(n.Labels))) {
    try {
      await docker.getNetwork(n.Id).remove()
    } catch {}
  }
  cleanupStaleCopies(log)
  return removed
}
