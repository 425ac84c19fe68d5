import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { checkDocs, pathExists } from '../../lib/docs/check.ts'
import { blockNames, fillBlocks } from '../../lib/docs/generate.ts'

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'pb-docs-'))
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), text)
  }
  return root
}

const base = {
  'package.json': JSON.stringify({ scripts: { bench: 'zx notebooks/run-all.mjs --profile quick', test: 'node --test' } }),
  'notebooks/run-all.mjs': '',
  'lib/core/x.ts': '',
  'CONTRIBUTING.md': '```\n  core/  errors\n```\nnotebooks/run-all.mjs runs everything\n',
  'docs/a.md': '# A page\n## Known heading\n',
}
const help = new Map([['notebooks/run-all.mjs', '  --profile NAME  the profile\n  --series LIST   series']])

test('a tree whose pages, comments and commands all resolve has no problems', () => {
  const root = tree({
    ...base,
    'README.md': '[a](docs/a.md#known-heading)\n```\nnpm run bench -- --series tls\nnpx zx notebooks/run-all.mjs --profile smoke\n```\n`lib/core/x.ts`\n',
    'lib/core/y.ts': '// see docs/a.md#known-heading\n',
  })
  assert.deepEqual(checkDocs({ root, scripts: ['bench', 'test'], help }), [])
})

test('each kind of drift is one line naming the file and line', () => {
  const root = tree({
    ...base,
    'README.md': [
      '[gone](docs/gone.md)',
      '[anchor](docs/a.md#no-such-heading)',
      '`lib/core/missing.ts`',
      '`npm run nope`',
      '`npx zx notebooks/run-all.mjs --no-such-flag`',
      '`npx zx notebooks/absent.mjs`',
    ].join('\n'),
    'lib/core/y.ts': '// README\u0020"Old section" and docs/a.md#stale\n',
    'lib/extra/z.ts': '',
    'notebooks/other.mjs': '',
  })
  const problems = checkDocs({ root, scripts: ['bench'], help: new Map([...help, ['notebooks/other.mjs', '']]) })
  assert.deepEqual(problems, [
    'README.md:1: link to docs/gone.md: docs/gone.md does not exist',
    'README.md:2: link to docs/a.md#no-such-heading: docs/a.md has no heading #no-such-heading',
    'README.md:3: lib/core/missing.ts does not exist',
    'README.md:4: npm run nope: package.json has no such script',
    'README.md:5: notebooks/run-all.mjs has no flag --no-such-flag (not in its --help)',
    'README.md:6: notebooks/absent.mjs does not exist',
    'lib/core/y.ts:1: a README section named in quotes: point at a docs/ page and anchor instead',
    'lib/core/y.ts:1: docs/a.md has no heading #stale',
    'notebooks/other.mjs: named on no page of README.md, CONTRIBUTING.md or docs/ (say what it is for)',
    'CONTRIBUTING.md: the layout does not list lib/extra/',
  ])
})

test('a lab note may still name a file deleted since its date; another page may not', () => {
  const gone = '`bench/machine-shift.mjs` and [the page](../method/reference.md)\n'
  const root = tree({ ...base, 'docs/lab-notes/2026-12-01-x.md': gone, 'docs/b.md': gone.replace('../method/', 'method/') })
  assert.deepEqual(checkDocs({ root, scripts: ['bench'], help }), [
    'docs/b.md:1: link to method/reference.md: docs/method/reference.md does not exist',
    'docs/b.md:1: bench/machine-shift.mjs does not exist',
  ])
})

test('paths with placeholders match any one segment', () => {
  const root = tree({ 'stacks/nginx/stack.yaml': '', 'stacks/nginx/templates/article.conf': '' })
  assert.ok(pathExists(root, 'stacks/<proxy>/stack.yaml'))
  assert.ok(pathExists(root, 'stacks/<proxy>/templates/<variant>.*'))
  assert.ok(!pathExists(root, 'stacks/<proxy>/Dockerfile'))
})

test('generated blocks are replaced by their producer, an unknown one is an error', () => {
  const md = 'a\n<!-- generated: x -->\nold\n<!-- /generated -->\nb\n'
  assert.deepEqual(blockNames(md), ['x'])
  assert.equal(
    fillBlocks(md, 'p.md', () => 'new'),
    'a\n<!-- generated: x -->\nnew\n<!-- /generated -->\nb\n',
  )
  assert.throws(() => fillBlocks(md, 'p.md', () => undefined), /p\.md: unknown generated block "x"/)
})
