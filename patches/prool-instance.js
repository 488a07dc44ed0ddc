// PATCH of prool's import (0.x) in the `svc` command's bundle only, by this esbuild plugin (bin/build.js): svc's own
// modules that `import { Instance } from 'prool'` get an `Instance` with prool's own `Instance.define` alone (the
// function svc manages Anvil with, chain/anvil/instance.ts), from prool's dist/Instance.js. prool on disk is not
// touched, and what svc runs of it is the same code.
//
// Why: prool's index exports `Instance` as a namespace (`export * as Instance`), which holds its instance definitions
// (alto, anvil, tempo) and with them execa and execa's dependencies; used as an object, the namespace keeps all of
// them in the bundle, and `svc up` loaded and ran them before it spawned Anvil (execa's signal tables alone 10–25 ms
// of CPU on a busy machine). svc spawns Anvil itself and uses none of them.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const namespace = 'svc-prool-instance'

export const proolInstancePatch = {
  name: 'svc-patch-prool-instance',
  setup(build) {
    // No dependency of svc imports prool; one that did and used more than `Instance.define` would fail the build.
    build.onResolve({ filter: /^prool$/ }, () => ({ path: 'prool', namespace }))
    build.onLoad({ filter: /.*/, namespace }, () => {
      const require = createRequire(import.meta.url)
      // prool's main module is its dist/index.js; Instance.js sits beside it.
      const instance = join(dirname(require.resolve('prool')), 'Instance.js')
      return {
        contents: `import { define } from ${JSON.stringify(instance)}\nexport const Instance = { define }\n`,
        loader: 'js',
        resolveDir: dirname(instance),
      }
    })
  },
}
