import { memoryLogger } from '../../lib/core/log.ts'
import { ensureDockerEngine, type EngineInfo } from '../../lib/setup/docker-engine.ts'

/**
 * The real Docker engine for the integration tests, started when none answers; `missing` says
 * why there is none (not root, or dockerd missing), for testNeeding (test/support/needs.ts).
 */
export async function dockerEngineOrReason(): Promise<{ engine: EngineInfo | null; missing: string | false }> {
  try {
    return { engine: await ensureDockerEngine(memoryLogger()), missing: false }
  } catch (e) {
    return { engine: null, missing: `no Docker engine: ${(e as Error).message}` }
  }
}
