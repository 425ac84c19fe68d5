import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkerError } from '../../lib/roles/proxy.ts'

test("a checker's first error lines, its notices skipped (HAProxy, nginx), else its last line", () => {
  const haproxy = `[NOTICE]   (12) : haproxy version is 2.8.25
[NOTICE]   (12) : path to executable is /x/haproxy
[ALERT]    (12) : config : parsing [/tmp/x.cfg:2] : unknown keyword 'this-is-not-a-keyword' in 'global' section
[ALERT]    (12) : config : Error(s) found in configuration file : /tmp/x.cfg
[ALERT]    (12) : config : Fatal errors found in configuration.`
  assert.equal(
    checkerError(haproxy),
    "[ALERT]    (12) : config : parsing [/tmp/x.cfg:2] : unknown keyword 'this-is-not-a-keyword' in 'global' section | [ALERT]    (12) : config : Error(s) found in configuration file : /tmp/x.cfg",
  )
  assert.equal(
    checkerError('nginx: [emerg] unknown directive "foo" in /x.conf:3\nnginx: configuration file /x.conf test failed\n'),
    'nginx: [emerg] unknown directive "foo" in /x.conf:3 | nginx: configuration file /x.conf test failed',
  )
  assert.equal(checkerError('something odd\nexit now\n'), 'exit now')
})
