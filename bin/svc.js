#!/usr/bin/env node
// The `svc` command. It runs the sources transpiled to dist/ (rebuilt here first when a source is newer), which
// starts about twice as fast as running TypeScript through a loader; if the build cannot run, tsx is the fallback.
import { build, isFresh } from './build.js'

let entry = '../dist/tui/cli.js'
try {
  if (!isFresh()) await build()
} catch (error) {
  process.stderr.write(`svc: could not build dist/ (${error?.message?.split('\n')[0]}); running the TypeScript sources\n`)
  const { register } = await import('tsx/esm/api')
  register()
  entry = '../tui/cli.ts'
}
const { run } = await import(entry)
await run()
