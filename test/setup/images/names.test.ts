import assert from 'node:assert/strict'
import { test } from 'node:test'
import { imageTag } from '../../../lib/setup/images/names.ts'

test('image tags: proxybench/<component>:<version>, only characters Docker accepts', () => {
  assert.equal(imageTag('nginx', '1.31.3'), 'proxybench/nginx:1.31.3')
  assert.equal(imageTag('nginx', '1.22.1-9+deb12u11'), 'proxybench/nginx:1.22.1-9_deb12u11')
  assert.equal(imageTag('Backend', 'ce391f9ff9ea99eb'), 'proxybench/backend:ce391f9ff9ea99eb')
  assert.match(imageTag('x', '-'.repeat(300)), /^proxybench\/x:latest$/)
  assert.ok(imageTag('x', 'a'.repeat(300)).split(':')[1]!.length <= 128)
})
