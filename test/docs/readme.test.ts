/**
 * The README and the docs' home: the two commands are what CI runs, the README stays short and sends each reader
 * into the docs.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { docBlock, root } from './blocks.js'

test('the two commands are `npm ci && npm start` and `npm test`, as CI installs and tests, and start is svc up', () => {
  const commands = docBlock('get-started/two-commands.sh')
    .code.trim()
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, ''))
  expect(commands).toEqual(['npm ci && npm start', 'npm test'])
  const ci = readFileSync(join(root, '.ci/run'), 'utf8')
  expect(ci).toMatch(/^JOBS=max npm ci /m)
  expect(ci).toMatch(/^npm test\b/m)
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  expect(scripts.start).toBe('node bin/svc.js up')
  expect(scripts.test).toBe('vitest run')
})
