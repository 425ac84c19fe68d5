#!/usr/bin/env zx
// Which release changed this? Halves the catalog versions of one proxy until two adjacent ones differ.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')
const { BISECT_NOTEBOOK_FLAGS, bisectRunFlags, tagsPlan, tagsRuntime } = await import('../lib/cli/bisect-options.ts')
const { listTags, parseRepoRef } = await import('../lib/setup/registry.ts')

const HELP = `Usage: npx zx notebooks/bisect.mjs --proxy NAME [--variant LIST] [--metric cpu|conns] [options]
       (the same as: npx zx notebooks/run-all.mjs --series bisect --proxies NAME --variants LIST)

Measures the oldest and newest catalog versions of the proxy (stacks/<proxy>/stack.yaml,
semver order) with each variant (default article), then the middle of the interval whose
ends differ, until two adjacent versions differ significantly (Mann-Whitney at α = 0.05 and
the ratio's interval outside ±10%), and prints the step:
  nginx upstream-default: the step is between A and B: R [lo, hi]x proxy CPU µs/req a → b (p=…, n+n repeats), backend conns/1k a → b
Each version gets at least 5 repeats. Rows: measurements.csv, series bisect; the plan: bisect.json.

${flagHelp(BISECT_NOTEBOOK_FLAGS, { helpFlag: false })}
Options:
${RUN_FLAGS_HELP}`

const { series, proxies, variants, ...flags } = RUN_FLAGS
const SPEC = { ...flags, ...BISECT_NOTEBOOK_FLAGS }
const argv = notebookArgs('bisect.mjs')

await runNotebook(async () => {
  const { 'tags-from': tagsFrom, ...rest } = parseFlags(argv, SPEC, HELP, 'notebooks/bisect.mjs')
  if (tagsFrom !== undefined && rest.proxy === undefined) return void console.log(await tagsPlan(tagsFrom))
  // With --proxy: the bisect runs over the registry's releases, each from its image.
  if (tagsFrom !== undefined) rest.runtime = tagsRuntime(rest.runtime)
  const bisectTags = tagsFrom !== undefined ? { ref: tagsFrom, tags: await listTags(parseRepoRef(tagsFrom)) } : undefined
  return runFromFlags(argv, {
    notebook: 'notebooks/bisect.mjs',
    help: HELP,
    install: false,
    fixedSeries: ['bisect'],
    parse: () => bisectRunFlags(rest),
    ...(bisectTags ? { extra: { bisectTags } } : {}),
  })
})
