import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { ciBlocks, exited, leftovers, processesOf, project } from './ci-project.js'

// The CI page's `svc exec` line, GitLab CI job and shell script, run as written (the GitHub Action's workflow:
// github-action.test.ts; the `svc up --detach` lines and the Python buyer: direct-url-python.test.ts).

describe("the CI page's svc exec line, GitLab CI job and shell script", { timeout: 180_000 }, () => {
  test('svc exec: the command pays with the environment it is given, svc stops after it', async () => {
    const p = project()
    leftovers.push(p.configDir)
    const result = await exited('bash', ['-eo', 'pipefail', '-c', ciBlocks['svc-exec.sh']!], { cwd: p.dir, env: p.env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/paid: settled charged 0\.01 USDC/)
    expect(processesOf(p.configDir)).toEqual([])
  })

  test('GitLab CI: the script lines in one shell, the log where the artifact path finds it', async () => {
    const gitlab = parse(ciBlocks['gitlab-ci.yml']!)['svc-tests']
    const p = project()
    leftovers.push(join(p.dir, '.svc'))
    const variables = Object.fromEntries(
      Object.entries(gitlab.variables as Record<string, string>).map(([name, value]) => [
        name,
        value.replace('$CI_PROJECT_DIR', p.dir),
      ]),
    )
    const script = (gitlab.script as string[]).filter((line) => line !== 'npm ci').join('\n')
    const env = { ...p.env, CI_PROJECT_DIR: p.dir, ...variables }
    const result = await exited('bash', ['-eo', 'pipefail', '-c', script], { cwd: p.dir, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/paid: settled charged 0\.01 USDC/)
    expect(result.stdout).toMatch(/^stopped default \(pid \d+\)$/m)
    // No key reaches the job's log: the ready line went to /dev/null.
    expect(result.stdout + result.stderr).not.toMatch(/private_key|svc_sandbox_|"jwt"/)
    expect(gitlab.artifacts).toEqual({ when: 'on_failure', paths: ['.svc/sandboxes/*.log'] })
    expect(readdirSync(join(p.dir, '.svc', 'sandboxes')).filter((file) => file.endsWith('.log'))).toEqual([
      'default.log',
    ])
    expect(processesOf(join(p.dir, '.svc'))).toEqual([])
  })

  test('the shell script: pays, stops svc on success and on failure, prints the log on failure', async () => {
    const p = project()
    leftovers.push(p.configDir)
    writeFileSync(join(p.dir, 'ci.sh'), ciBlocks['ci.sh']!, { mode: 0o755 })
    const runScript = (env: Record<string, string> = {}) =>
      exited('./ci.sh', [], { cwd: p.dir, env: { ...p.env, ...env } })
    const passed = await runScript()
    expect(passed.code, passed.stderr).toBe(0)
    expect(passed.stdout).toMatch(/paid: settled charged 0\.01 USDC/)
    expect(passed.stdout).toMatch(/^stopped default \(pid \d+\)$/m)
    expect(processesOf(p.configDir)).toEqual([])

    // A step fails: the script exits with its code, svc is stopped, its log printed (svc writes only what goes wrong
    // there, so here it is empty: `cat` finds it).
    const failed = await runScript({ FAIL_TESTS: '1' })
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('a test failed')
    expect(failed.stdout).toMatch(/^stopped default \(pid \d+\)$/m)
    expect(failed.stderr).not.toMatch(/No such file/)
    expect(processesOf(p.configDir)).toEqual([])
  })
})
