import assert from 'node:assert/strict'
import { test } from 'node:test'
import { anchors, codeLines, commandFlags, links, repoPaths, slug } from '../../lib/docs/markdown.ts'

test('anchors follow GitHub: punctuation dropped, spaces to hyphens, duplicates numbered, code ignored', () => {
  assert.equal(slug('Versions from other Debian suites: `source: debian:<suite>`'), 'versions-from-other-debian-suites-source-debiansuite')
  assert.equal(slug('Focused runs: `--variants`, `--key-types`'), 'focused-runs---variants---key-types')
  const md = '# A\n## Series\n```\n# not a heading\n```\n## Series\n<a id="kept"></a>\n'
  assert.deepEqual([...anchors(md)].sort(), ['a', 'kept', 'series', 'series-1'])
})

test('links outside code, external ones left out; code spans and block lines read apart', () => {
  const md = 'see [a](docs/a.md#x) and `[b](no.md)` [c](https://example.org)\n```\n[d](nope.md)\nnpx zx notebooks/run-all.mjs --series tls\n```\n'
  assert.deepEqual(links(md), [{ line: 1, target: 'docs/a.md#x' }])
  assert.deepEqual(
    codeLines(md).map((c) => c.text),
    ['[b](no.md)', '[d](nope.md)', 'npx zx notebooks/run-all.mjs --series tls'],
  )
})

test('repository paths with placeholders, and the flags of each command on a line', () => {
  assert.deepEqual(repoPaths('see lib/run/phase.ts, stacks/<proxy>/stack.yaml and results/x'), ['lib/run/phase.ts', 'stacks/<proxy>/stack.yaml'])
  assert.deepEqual(commandFlags('npm ci && npm run bench -- --profile smoke; npx zx bench/stability.mjs --runs 3 | tee x'), [
    { script: 'npm run bench', flags: ['--profile'] },
    { script: 'bench/stability.mjs', flags: ['--runs'] },
  ])
})
