// Tests spawn the real `svc` binary, which runs dist/: build it once here, before any worker starts, so no two
// spawned processes ever rebuild it at the same time.
// @ts-expect-error bin/build.js is plain JavaScript without type declarations.
import { build, isFresh } from '../bin/build.js'

export default async function setup() {
  if (!isFresh()) await build()
}
