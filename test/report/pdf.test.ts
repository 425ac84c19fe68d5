import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'

test('a missing Chromium is one line naming the Debian package', async () => {
  const { chromiumPath } = await import('../../lib/report/pdf.ts')
  const old = process.env.PUPPETEER_EXECUTABLE_PATH
  try {
    process.env.PUPPETEER_EXECUTABLE_PATH = '/nonexistent/chromium'
    assert.throws(
      () => chromiumPath(),
      (e) =>
        e instanceof UserError &&
        !e.message.includes('\n') &&
        /^PUPPETEER_EXECUTABLE_PATH=\/nonexistent\/chromium: .*apt-get install -y chromium/.test(e.message),
    )
  } finally {
    if (old === undefined) delete process.env.PUPPETEER_EXECUTABLE_PATH
    else process.env.PUPPETEER_EXECUTABLE_PATH = old
  }
})
