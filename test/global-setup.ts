// Tests spawn the real `svc` binary, which runs dist/: build it here (about 0.2 s), before any worker starts, so
// every run (`npm test` or `npx vitest run`) tests the sources as they are and no two processes build at once.
// @ts-expect-error bin/build.js is plain JavaScript without type declarations.
import { build } from '../bin/build.js'

export default async function setup() {
  await build()
}
