import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { loadStack, PROXIES, templateFile, templateVariants } from '../../lib/catalog/stack.ts'
import { placeholders, renderTemplate, TEMPLATE_NAMES } from '../../lib/catalog/template.ts'

test('renders placeholders with or without spaces', () => {
  assert.equal(
    renderTemplate(
      'listen {{listen_port}};\nproxy {{ backend_host }}:{{backend_port}}',
      { listen_port: 8443, backend_host: '127.0.0.1', backend_port: 8080 },
      'x.conf',
    ),
    'listen 8443;\nproxy 127.0.0.1:8080',
  )
})

test('an unknown variable names file and line and lists the known names', () => {
  assert.throws(
    () => renderTemplate('a\nb {{listen_prot}}', { listen_port: 1 }, 'stacks/nginx/templates/article.conf'),
    (e: unknown) =>
      e instanceof UserError &&
      /^stacks\/nginx\/templates\/article\.conf:2: unknown template variable \{\{listen_prot\}\}\. Use one of: listen_port/.test(e.message),
  )
})

test('a known variable without a value is an error too', () => {
  assert.throws(() => renderTemplate('{{cert}}', {}, 'f'), /f:1: template variable \{\{cert\}\} has no value here/)
})

test('extra allowed names (binary, config) work for command lines', () => {
  assert.equal(renderTemplate('{{binary}} -c {{config}}', { binary: '/b', config: '/c' }, 'stack.yaml', ['binary', 'config']), '/b -c /c')
})

test('placeholders lists names in order', () => {
  assert.deepEqual(placeholders('{{a}} x {{ b }}'), ['a', 'b'])
})

test('listen_host is a template name and renders', () => {
  assert.ok(TEMPLATE_NAMES.includes('listen_host'))
  assert.equal(
    renderTemplate('listen {{listen_host}}:{{listen_port}} ssl;', { listen_host: '0.0.0.0', listen_port: 8443 }, 'x.conf'),
    'listen 0.0.0.0:8443 ssl;',
  )
})

test('every proxy listens on {{listen_host}}, never on a literal loopback address', () => {
  for (const proxy of PROXIES) {
    const stack = loadStack(proxy)
    // Traefik's listener is on its command line; the others' in the template.
    const startLine = stack.start.join(' ')
    for (const variant of templateVariants(proxy)) {
      const text = readFileSync(templateFile(stack, variant), 'utf8')
      const where = `${proxy} ${variant}`
      assert.ok(placeholders(text + startLine).includes('listen_host'), `${where} uses {{listen_host}}`)
      const listeners = (text + '\n' + startLine).split('\n').filter((l) => !l.trim().startsWith('#') && /listen_port/.test(l))
      for (const l of listeners) assert.doesNotMatch(l, /127\.0\.0\.1|localhost/, `${where}: ${l.trim()}`)
    }
  }
})
