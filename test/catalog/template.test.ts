import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { placeholders, renderTemplate } from '../../lib/catalog/template.ts'

test('renders placeholders with or without spaces', () => {
  assert.equal(renderTemplate('listen {{listen_port}};\nproxy {{ backend_host }}:{{backend_port}}', { listen_port: 8443, backend_host: '127.0.0.1', backend_port: 8080 }, 'x.conf'), 'listen 8443;\nproxy 127.0.0.1:8080')
})

test('an unknown variable names file and line and lists the known names', () => {
  assert.throws(
    () => renderTemplate('a\nb {{listen_prot}}', { listen_port: 1 }, 'stacks/nginx/templates/article.conf'),
    (e: unknown) => e instanceof UserError && /^stacks\/nginx\/templates\/article\.conf:2: unknown template variable \{\{listen_prot\}\}\. Use one of: listen_port/.test(e.message),
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
