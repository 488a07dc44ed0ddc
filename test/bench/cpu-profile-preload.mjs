// Loaded into a child svc with NODE_OPTIONS=--import (node 20 refuses --cpu-prof there): samples its CPU with the
// inspector from start to exit, and writes `<PROFILE_TO>/<pid>.cpuprofile` (test/bench/cpu-profile.ts reads it).
import { mkdirSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'

const dir = process.env.PROFILE_TO
const session = new Session()
session.connect()
session.post('Profiler.enable')
session.post('Profiler.setSamplingInterval', { interval: 500 })
session.post('Profiler.start')
process.on('exit', () => {
  // The in-process session answers synchronously: the file is written before the process ends.
  session.post('Profiler.stop', (error, result) => {
    if (error || !dir) return
    mkdirSync(dir, { recursive: true })
    writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(result.profile))
  })
})
