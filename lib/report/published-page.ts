import { readPublished } from '../analysis/published.ts'
import { loadLedger } from '../claims/ledger.ts'
import { Article, esc } from './markdown.ts'

/** The baseline's own page: what it is and every figure it quotes. */
export function publishedPage(file: string): { markdown: string; files: { path: string; content: string }[] } {
  const p = readPublished(file)
  const figures = [...loadLedger().figures.values()].filter((f) => f.source === p.source)
  const a = new Article()
  a.heading(1, `Baseline ${esc(p.id)}`)
  a.para(`${esc(p.title)}. Machine: ${esc(p.machine)}.${p.notes ? ` ${esc(p.notes)}` : ''}`)
  a.para('Every figure below is transcribed from the article (`baselines/published/figures.yaml`), with its words; nothing is computed or inferred.')
  a.table(
    'figures',
    [
      { title: 'figure', value: (f) => f.id },
      { title: 'proxy', value: (f) => f.proxy ?? '' },
      { title: 'metric', value: (f) => f.metric },
      { title: 'value', value: (f) => (typeof f.value === 'number' || typeof f.value === 'string' ? f.value : String(f.value)) },
      { title: 'unit', value: (f) => f.unit ?? '' },
      { title: 'meaning', value: (f) => f.meaning },
      { title: 'quote', value: (f) => f.quote },
    ],
    figures,
  )
  return { markdown: a.toString(), files: a.files }
}
