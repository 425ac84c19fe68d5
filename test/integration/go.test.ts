import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { exec } from '../../lib/core/exec.ts'
import { GO_PROGRAMS } from '../../lib/setup/gobuild.ts'
import { stacksDir } from '../../lib/core/paths.ts'

// The Go programs' own tests (real servers on loopback) run as part of npm test.
for (const name of GO_PROGRAMS) {
  test(`go vet and go test in stacks/${name}`, async () => {
    const cwd = join(stacksDir, name)
    const vet = await exec('go', ['vet', './...'], { cwd })
    assert.equal(vet.code, 0, vet.stderr)
    const r = await exec('go', ['test', '-count=1', './...'], { cwd, timeoutMs: 300_000 })
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^ok\s/m)
  })
}
