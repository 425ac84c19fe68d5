import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { MachineLink, PairedLink } from '../../lib/analysis/chain.ts'
import { CHAIN_TITLE, chainSection, changeText, factorText, NO_PAIRS_LINE } from '../../lib/report/history-chain.ts'
import { historyArticle } from '../../lib/report/history.ts'
import { Article } from '../../lib/report/markdown.ts'
import { renderMarkdown } from '../../lib/report/render.ts'

const nginx = (
  baselineId: string,
  runId: string,
  date: string,
  thenVersion: string,
  nowVersion: string,
  ratio: number,
  lo: number,
  hi: number,
): PairedLink => ({
  runId,
  date,
  baselineId,
  proxy: 'nginx',
  basis: 'time',
  thenVersion,
  nowVersion,
  ratio,
  lo,
  hi,
  cells: 3,
  method: 'quick profile, native, data schema 9',
})
const LINKS: PairedLink[] = [
  nginx('2027-12-01-quick', '2028-12-01-quick', '2028-12-01T10:00:00Z', '1.33.0', '1.35.1', 1.02, 1.0, 1.04),
  nginx('2026-11-30-quick-2core', '2027-12-01-quick', '2027-12-01T10:00:00Z', '1.31.3', '1.33.0', 0.88, 0.82, 0.95),
]
const MACHINE: MachineLink[] = [
  { runId: '2027-12-01-quick', date: '2027-12-01T10:00:00Z', baselineId: '2026-11-30-quick-2core', ratio: 1.32, lo: 1.21, hi: 1.4, cells: 12 },
]

const section = (proxy: readonly PairedLink[], machine: readonly MachineLink[] = []) => {
  const a = new Article('history/')
  chainSection(a, { proxy, machine })
  return { markdown: a.toString(), files: a.files }
}

test('chain of pairs section: per proxy its chain, each step and the long-run index with intervals, the machine on a line apart', () => {
  const { markdown, files } = section(LINKS, MACHINE)
  const table = markdown.slice(markdown.indexOf('### nginx'))
  assert.equal(
    table,
    [
      '### nginx',
      '',
      "*Time:* proxy CPU µs per request, paired in each run: the price of that work on each run's machine.",
      '',
      "| run | date | then → now | this step\\'s change | long\\-run index | link | method |",
      '|---|---|---|---|---|---|---|',
      '| 2026\\-11\\-30\\-quick\\-2core | — | — | — | 1\\.00× \\[1\\.00\\, 1\\.00\\] | start of the chain | — |',
      '| 2027\\-12\\-01\\-quick | 2027\\-12\\-01 | 1\\.31\\.3 → 1\\.33\\.0 | −12\\% \\[−18\\%\\, −5\\%\\] | 0\\.88× \\[0\\.82\\, 0\\.95\\] | step from 2026\\-11\\-30\\-quick\\-2core | quick profile\\, native\\, data schema 9 |',
      '| 2028\\-12\\-01\\-quick | 2028\\-12\\-01 | 1\\.33\\.0 → 1\\.35\\.1 | \\+2\\% \\[0\\%\\, \\+4\\%\\] | 0\\.90× \\[0\\.83\\, 0\\.97\\] | step from 2027\\-12\\-01\\-quick | quick profile\\, native\\, data schema 9 |',
      '',
      '[pairs-nginx.csv](history/data/pairs-nginx.csv)',
      '',
      "*Machine, apart (not in the index):* this machine vs the baseline's on the same binaries: 2027\\-12\\-01\\-quick (vs 2026\\-11\\-30\\-quick\\-2core, 12 cells): 1\\.32× \\[1\\.21\\, 1\\.40\\].",
      '',
    ].join('\n'),
  )
  assert.match(markdown, /^## Proxy cost across years, measured in pairs\n\nAbsolute µs of different runs are never compared here/)
  // The machine factor changes nothing in the index: the same section without it has the same table.
  const without = section(LINKS).markdown
  assert.equal(without.slice(0, without.indexOf('*Machine')), markdown.slice(0, markdown.indexOf('*Machine')))
  assert.match(without, /\*Machine, apart:\* no machine factor recorded for these runs\./)
  // The CSV keeps the numbers behind the words.
  const csv = files.find((f) => f.path === 'history/data/pairs-nginx.csv')!.content.split('\n')
  assert.equal(
    csv[0],
    "run,date,then → now,this step's change,step ratio,step ratio lo,step ratio hi,cells,long-run index,index,index lo,index hi,segment,link,method",
  )
  assert.match(csv[3]!, /^2028-12-01-quick,2028-12-01,1\.33\.0 → 1\.35\.1,"\+2% \[0%, \+4%\]",1\.02,1,1\.04,3,"0\.90× \[0\.83, 0\.97\]",0\.8976/)
})

test('chain of pairs section: without a paired run, one line saying how to make one', () => {
  const { markdown, files } = section([])
  assert.equal(markdown, `## ${CHAIN_TITLE}\n\n${NO_PAIRS_LINE}\n`)
  assert.match(NO_PAIRS_LINE, /`npm run bench -- --like <baseline-id>`/)
  assert.deepEqual(files, [])
  // Machine factors alone: the line and the factors, no proxy table.
  const alone = section([], MACHINE).markdown
  assert.ok(alone.includes(NO_PAIRS_LINE) && !alone.includes('### '))
  assert.match(alone, /\*Machine factors of runs with no proxy link:\* .*1\\\.32× \\\[1\\\.21\\, 1\\\.40\\\]\./)
})

test('chain of pairs section: gaps and branches said in the link column; strings from data stay text', () => {
  const hostile = '[x](javascript:alert(1)) | <b>'
  const links = [
    { ...LINKS[1]!, proxy: hostile, nowVersion: '1.33|0' },
    { ...LINKS[0]!, proxy: hostile, baselineId: 'elsewhere' },
    { ...LINKS[0]!, proxy: hostile, runId: 'second', baselineId: '2026-11-30-quick-2core' },
  ]
  const { markdown } = section(links)
  const text = markdown.replace(/\\(.)/g, '$1')
  assert.match(
    text,
    /\| elsewhere \| — \| — \| — \| 1\.00× \[1\.00, 1\.00\] \| new segment: elsewhere is no point of the chain before \(no usable paired link ends there\): the index restarts at 1\.0, not bridged \|/,
  )
  assert.match(text, /\| second \| .* \| 1\.02× \[1\.00, 1\.04\] \| branch from 2026-11-30-quick-2core \(not the row above\) \|/)
  const html = renderMarkdown(markdown).html
  assert.ok(!html.includes('<b>') && !html.includes('href="javascript'), 'no markup from data')
  // Every table row keeps its seven cells: the | in a version does not split one.
  for (const row of markdown.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| run'))) assert.equal(row.match(/(?<!\\)\|/g)?.length, 8, row)
})

test('changes and factors in words: signed percentages, one decimal when the interval is narrow', () => {
  assert.equal(changeText({ value: 0.88, lo: 0.82, hi: 0.95 }), '−12% [−18%, −5%]')
  assert.equal(changeText({ value: 1.005, lo: 0.99, hi: 1.02 }), '+0.5% [−1.0%, +2.0%]')
  assert.equal(changeText({ value: 1, lo: 0.999, hi: 1.001 }), '0.0% [−0.1%, +0.1%]')
  assert.equal(factorText({ value: 1.32, lo: 1.21, hi: 1.4 }), '1.32× [1.21, 1.40]')
})

test('history page: the chain of pairs section comes first, before the groups', () => {
  const h = historyArticle([], [], [], { proxy: LINKS, machine: MACHINE })
  assert.ok(h.markdown.indexOf(`## ${CHAIN_TITLE}`) > h.markdown.indexOf('Sources: none.'))
  assert.match(h.markdown, /### nginx/)
  assert.ok(h.files.some((f) => f.path === 'history/data/pairs-nginx.csv'))
  const empty = historyArticle([], [], [])
  assert.ok(empty.markdown.includes(`## ${CHAIN_TITLE}\n\n${NO_PAIRS_LINE}\n`))
})
