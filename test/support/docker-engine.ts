import { memoryLogger } from '../../lib/core/log.ts'
import { ensureDockerEngine, type EngineInfo } from '../../lib/setup/docker-engine.ts'

/**
 * The real Docker engine for the integration tests, started when none answers; `skip` says
 * why there is none (not root, or dockerd missing), for testNeeding (test/support/needs.ts).
 */
export async function dockerEngineOrReason(): Promise<{ engine: EngineInfo | null; skip: string | false }> {
  try {
    return { engine: await ensureDockerEngine(memoryLogger()), skip: false }
  } catch (e) {
    return { engine: null, skip: `no Docker engine: ${(e as Error).message}` }
  }
}
