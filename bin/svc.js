#!/usr/bin/env node
// The `svc` command. It runs the JavaScript that `npm run build` transpiles to dist/: npm builds it on install and
// on pack (the `prepare` and `prepack` scripts), so nothing is compiled or scanned here. `npm run dev -- <command>`
// runs the TypeScript sources instead.
import { existsSync } from 'node:fs'
import module from 'node:module'

// The parent svc was started by, read before anything loads (cli/watch-parent.ts): one that dies while svc starts on
// a busy machine is noticed, not mistaken for having had no parent.
globalThis.svcStartParent = process.ppid

const entry = new URL('../dist/cli/cli.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write(
    'svc: dist/ is missing: build it with `npm run build` (or run the sources with `npm run dev -- <command>`)\n',
  )
  process.exit(2)
}
// Node 22.1 and later (24 is the LTS): V8 keeps the code it compiles of svc's bundle on disk (Node's compile cache, in
// the OS's temporary directory unless NODE_COMPILE_CACHE says where; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a
// later start skips compiling it again. Node 20 has no such switch.
module.enableCompileCache?.()
// `svc up … --detach`: the detached svc is spawned before the CLI would have loaded, and this process loads only what
// waits for it and records it (cli/detach-start.ts).
const args = process.argv.slice(2)
if (args[0] === 'up' && args.includes('--detach')) {
  const { detachRequest, runDetachRequest } = await import(new URL('../dist/cli/detach-start.js', import.meta.url).href)
  const request = detachRequest(args)
  if (request) {
    const code = await runDetachRequest(args, request, process.env)
    await new Promise((resolve) => process.stdout.write('', resolve))
    process.exit(code)
  }
}
const { run } = await import(entry.href)
await run()
