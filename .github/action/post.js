// The svc GitHub Action's post step, run once the job's steps are done, whatever their outcome (`post-if: always()`):
// `svc down` for the sandbox main started, then svc's log when the job did not succeed. The job's status reaches this
// process through the `job-status` input, whose default `${{ job.status }}` the runner evaluates again for the post
// step (as actions/setup-java does): a post step has no other way to know it.
import { isAbsolute } from 'node:path'
import { command, fail, info, input, printLog, runSvc, state } from './lib.js'

const running = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

async function post() {
  const name = state('name')
  if (!name) return info('svc was not started: nothing to stop')
  const svc = JSON.parse(state('svc'))
  const down = runSvc(svc, ['down', '--name', name], state('cwd') || process.cwd())
  if (down.stdout.trim()) info(down.stdout.trim())
  const pid = Number(state('pid'))
  if (down.status !== 0 && pid > 0 && running(pid)) {
    // `svc down` could not run (svc uninstalled by a later step?): svc's process group is stopped here instead.
    command('warning', `svc down failed (${down.stderr.trim()}): stopping svc's process group ${pid}`)
    try {
      process.kill(-pid, 'SIGTERM')
    } catch {}
    const deadline = Date.now() + 35_000
    while (running(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    if (running(pid)) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {}
    }
  } else if (down.status !== 0) command('warning', `svc down: ${down.stderr.trim()}`)

  const log = state('log')
  const status = input('job-status')
  const when = input('print-log') || 'on-failure'
  if (!log || !isAbsolute(log) || when === 'never') return
  if (when === 'always') printLog(log, `the job's status: ${status || 'unknown'}`)
  else if (status !== 'success') printLog(log, status ? `the job's status: ${status}` : "the job's status is unknown")
}

post().catch((error) => fail(error instanceof Error ? error.message : String(error)))
