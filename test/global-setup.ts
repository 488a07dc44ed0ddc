// Tests spawn the real `svc` binary, which runs dist/: build it here (about 0.2 s), before any worker starts, so
// every run (`npm test` or `npx vitest run`) tests the sources as they are and no two processes build at once.
// @ts-expect-error bin/build.js is plain JavaScript without type declarations.
import { build } from '../bin/build.js'
import type { TestProject } from 'vitest/node'
import { startPostgres } from './helpers/postgres.js'

export default async function setup(project: TestProject) {
  await build()
  // SVC_TEST_DATABASE=postgres: the servers the tests start keep their data in PostgreSQL, on one server for the run.
  if (process.env.SVC_TEST_DATABASE !== 'postgres') return
  const postgres = await startPostgres()
  project.provide('postgresUrl', postgres.url)
  return () => postgres.stop()
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL server (SVC_TEST_DATABASE=postgres), without a database name. */
    postgresUrl?: string
  }
}
