import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { dotenvLines } from '../../cli/sandbox-env.js'
import { holdPort } from '../helpers/processes.js'
import { svcBin } from './harness.js'
import { ciBlocks, dirs, type Exited, exited, leftovers, processesOf, project, root } from './ci-project.js'

// The GitHub Action (action.yml, .github/action/) run as GitHub's runner runs it: each step a process of its own, the
// inputs as INPUT_* variables (an input's default from action.yml, `${{ job.status }}` evaluated per step), fresh
// GITHUB_OUTPUT / GITHUB_ENV / GITHUB_STATE files per step, read back after it; what GITHUB_ENV set is in every later
// step's environment, post's included, and what GITHUB_STATE set reaches post as STATE_*. The job is the README's
// workflow, its `run` steps run by bash in a project whose node_modules/.bin/svc is this checkout's svc.

const action = parse(readFileSync(join(root, 'action.yml'), 'utf8'))

// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, as action.yml writes it
const jobStatus = '${{ job.status }}'

/** A file command file as the runner reads it: `name=value` lines and `name<<delimiter` heredocs. */
function fileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1)
      expect(end, `${heredoc[1]}'s heredoc is not closed`).toBeGreaterThan(i)
      values[heredoc[1]!] = lines.slice(i + 1, end).join('\n')
      i = end
    } else if (line.includes('=')) values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
  }
  return values
}

type StepResult = Exited & {
  outputs: Record<string, string>
  env: Record<string, string>
  state: Record<string, string>
}

/** A job: its steps run one after another, each with the environment the steps before it set (GITHUB_ENV). */
function job(p: ReturnType<typeof project>) {
  leftovers.push(p.configDir)
  const jobEnv: Record<string, string> = {}
  let stepCount = 0

  async function step(argv: string[], env: Record<string, string> = {}): Promise<StepResult> {
    const files = join(p.dir, '..', `${p.dir.split('/').at(-1)}-step-${stepCount++}`)
    mkdirSync(files)
    dirs.push(files)
    const paths = { GITHUB_OUTPUT: 'output', GITHUB_ENV: 'env', GITHUB_STATE: 'state' }
    for (const [name, file] of Object.entries(paths)) {
      writeFileSync(join(files, file), '')
      env[name] = join(files, file)
    }
    const result = await exited(argv[0]!, argv.slice(1), { cwd: p.dir, env: { ...p.env, ...jobEnv, ...env } })
    const read = (file: string) => fileCommands(readFileSync(join(files, file), 'utf8'))
    const set = { outputs: read('output'), env: read('env'), state: read('state') }
    Object.assign(jobEnv, set.env)
    return { ...result, ...set }
  }

  /** The action's INPUT_* variables: each input's `with` value, else its default, `${{ job.status }}` evaluated. */
  function inputs(given: Record<string, unknown>, status: string): Record<string, string> {
    const env: Record<string, string> = {}
    for (const [name, spec] of Object.entries(action.inputs as Record<string, { default?: string }>)) {
      const value = String(given[name] ?? spec.default ?? '').replace(jobStatus, status)
      env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
    }
    return env
  }

  let state: Record<string, string> = {}
  return {
    /** The action's main step. */
    async main(given: Record<string, unknown>) {
      const result = await step([process.execPath, join(root, action.runs.main)], inputs(given, 'success'))
      state = result.state
      return result
    },
    /** A `run:` step, by bash as the runner runs it (`bash -e {0}`). */
    run: (script: string, env: Record<string, string> = {}) => step(['bash', '-e', '-c', script], env),
    /** The action's post step: STATE_* from main, its inputs again with the job's status now. */
    post(given: Record<string, unknown>, status: 'success' | 'failure' | 'cancelled') {
      const stateEnv = Object.fromEntries(Object.entries(state).map(([name, value]) => [`STATE_${name}`, value]))
      return step([process.execPath, join(root, action.runs.post)], { ...inputs(given, status), ...stateEnv })
    },
    step,
    jobEnv,
  }
}

describe('the GitHub Action', { timeout: 120_000 }, () => {
  test('action.yml: a node24 action, main and post as the runner finds them, post after any outcome', () => {
    expect(action.runs).toEqual({
      using: 'node24',
      main: '.github/action/main.js',
      post: '.github/action/post.js',
      'post-if': 'always()',
    })
    expect(action.inputs['job-status'].default).toBe(jobStatus)
  })

  test("any value reaches the job's environment as it is: svc's dotenv lines read back, GITHUB_ENV's heredocs", async () => {
    const env = {
      PLAIN: 'http://{slug}.dev.localhost:4020',
      QUOTED: `it's a "quoted" $password \\ with a backslash`,
      LINES: 'two\nlines',
      EMPTY: '',
    }
    // lib.js's parseDotenv reads what svc status --dotenv writes; exportVariable writes it as the runner reads it.
    const script = `import { exportVariable, parseDotenv } from ${JSON.stringify(join(root, '.github/action/lib.js'))}
const env = parseDotenv(process.argv[1])
for (const [name, value] of Object.entries(env)) exportVariable(name, value)
exportVariable('DELIMITER_LIKE', 'ghadelimiter_x\\nEVIL=1')`
    const p = project()
    const run = job(p)
    const step = await run.step([process.execPath, '--input-type=module', '-e', script, dotenvLines(env)])
    expect(step.code, step.stderr).toBe(0)
    expect(step.env).toEqual({ ...env, DELIMITER_LIKE: 'ghadelimiter_x\nEVIL=1' })
  })

  test("the README's workflow: main, the steps with its environment and outputs, post stops svc", async () => {
    const workflow = parse(ciBlocks['github-workflow.yml']!)
    const p = project()
    const run = job(p)
    let main: StepResult | undefined
    let given: Record<string, unknown> = {}
    const ran: StepResult[] = []
    for (const step of workflow.jobs.test.steps as {
      uses?: string
      run?: string
      id?: string
      with?: Record<string, unknown>
    }[]) {
      // Other actions (checkout, setup-node) and `npm ci`: the project is checked out and installed already.
      if (step.uses?.startsWith('actions/') || step.run?.trim() === 'npm ci') continue
      if (step.uses) {
        expect(step.uses).toMatch(/\/svc@/)
        given = step.with ?? {}
        main = await run.main(given)
        expect(main.code, main.stdout + main.stderr).toBe(0)
        continue
      }
      const outputs = main!.outputs
      const script = step.run!.replace(/\$\{\{ steps\.svc\.outputs\.([\w-]+) \}\}/g, (_, name) => outputs[name]!)
      const result = await run.run(script)
      expect(result.code, `${script}\n${result.stdout}${result.stderr}`).toBe(0)
      ran.push(result)
    }

    // The job's environment: the sandbox's list, as `svc status --dotenv` gives it.
    const env = main!.env
    for (const name of ['SVC_BASE_URL', 'SVC_RPC_URL', 'SVC_API_WEATHER_URL', 'FACILITATOR_URL', 'EVM_PRIVATE_KEY'])
      expect(env[name], name).toBeTruthy()
    expect(env.EVM_PRIVATE_KEY).toMatch(/^0x[0-9a-f]{64}$/)
    expect(env.SVC_EVM_PRIVATE_KEY).toBe(env.EVM_PRIVATE_KEY)
    // The outputs: the ready line's URLs and chain, the buyer's address; no secret among them.
    const outputs = main!.outputs
    expect(outputs).toMatchObject({
      name: 'default',
      'chain-id': '845320402',
      network: 'eip155:845320402',
      usdc: env.SVC_USDC_ADDRESS,
      'rpc-url': env.SVC_RPC_URL,
      'facilitator-url': env.FACILITATOR_URL,
      'sandbox-control-url': env.SVC_SANDBOX_CONTROL_URL,
      'resource-server-url': env.RESOURCE_SERVER_URL,
      'buyer-address': env.SVC_BUYER_ADDRESS,
    })
    const secrets = [env.EVM_PRIVATE_KEY, env.SVC_JWT, env.SVC_API_KEY, env.SVC_SELLER_PASSWORD]
    for (const secret of secrets) {
      expect(secret).toBeTruthy()
      expect(Object.values(outputs)).not.toContain(secret)
      // Masked before anything else could print it; main prints it nowhere else.
      expect(main!.stdout).toContain(`::add-mask::${secret}\n`)
      expect(main!.stdout.split(secret!).length - 1, 'printed once, in its mask').toBe(1)
    }
    expect(Object.keys(outputs)).not.toContain('private-key')
    // The steps reached the sandbox: the buyer paid the seeded API, the RPC answered the outputs' URL, the tests ran.
    expect(ran[0]!.stdout).toMatch(/^HTTP 200/)
    expect(ran[0]!.stdout).toMatch(/paid: settled charged 0\.01 USDC/)
    expect(JSON.parse(ran[1]!.stdout)).toMatchObject({ result: '0x326290d2' })
    expect(ran[2]!.stdout).toContain(`tests passed against ${env.RESOURCE_SERVER_URL}`)
    // svc and its Anvil run, found by the project's SVC_CONFIG_DIR in their environment.
    expect(processesOf(p.configDir)).toContain(Number(outputs.pid))
    expect(processesOf(p.configDir).length).toBeGreaterThanOrEqual(2)

    // The job succeeded: post stops svc and its Anvil, and leaves the log unprinted.
    const post = await run.post(given, 'success')
    expect(post.code, post.stdout + post.stderr).toBe(0)
    expect(post.stdout).toContain(`stopped default (pid ${outputs.pid})`)
    expect(post.stdout).not.toContain('::group::')
    expect(processesOf(p.configDir)).toEqual([])
    const status = await run.run('npx svc status')
    expect(status.code).toBe(1)
  })

  test('a failed job: post stops svc and prints its log in a group (svc given by the `svc` input)', async () => {
    const p = project()
    // No svc in the project: the `svc` input names the command (a path with a space, quoted as a shell would).
    rmSync(join(p.dir, 'node_modules'), { recursive: true })
    const spaced = join(p.dir, 'svc bin.js')
    symlinkSync(svcBin, spaced)
    const run = job(p)
    const given = { seed: '', name: 'failing', port: 0, svc: `node "${spaced}"` }
    const main = await run.main(given)
    expect(main.code, main.stdout + main.stderr).toBe(0)
    expect(JSON.parse(main.state.svc!)).toEqual(['node', spaced])
    expect(main.env.SVC_API_WEATHER_URL).toBeUndefined()
    const failed = await run.run('npm test', { FAIL_TESTS: '1' })
    expect(failed.code).not.toBe(0)
    // svc's log: how it started (its progress lines), and a line standing for what went wrong later.
    writeFileSync(main.outputs.log!, 'svc: something went wrong\n', { flag: 'a' })

    const post = await run.post(given, 'failure')
    expect(post.code, post.stdout + post.stderr).toBe(0)
    expect(post.stdout).toContain(`stopped failing (pid ${main.outputs.pid})`)
    expect(post.stdout).toMatch(
      new RegExp(
        `::group::svc's log \\(the job's status: failure\\): ${main.outputs.log}\nsvc: starting the chain[^]*\nsvc: something went wrong\n(svc: .*\n)*::endgroup::\n`,
      ),
    )
    expect(processesOf(p.configDir)).toEqual([])
  })

  test("svc failing to start: main fails with svc's reason and prints its log; post has nothing to stop", async () => {
    const { port, server } = await holdPort()
    try {
      const p = project()
      const run = job(p)
      const given = { port }
      const main = await run.main(given)
      expect(main.code).toBe(1)
      expect(main.stdout).toMatch(new RegExp(`^::error::svc did not start \\(exit 2\\): .*${port}`, 'm'))
      expect(main.stdout).toMatch(/^::group::svc's log \(svc did not start\): .*default\.log$/m)
      expect(main.outputs).toEqual({})
      expect(main.env).toEqual({})
      const post = await run.post(given, 'failure')
      expect(post.code, post.stderr).toBe(0)
      expect(post.stdout).toContain('nothing was running')
      expect(post.stdout).not.toContain('::group::')
      expect(processesOf(p.configDir)).toEqual([])
    } finally {
      server.close()
    }
  })

  test('svc not installed in the working directory: main fails saying how to give it, before any state', async () => {
    const p = project()
    rmSync(join(p.dir, 'node_modules'), { recursive: true })
    const run = job(p)
    const main = await run.main({})
    expect(main.code).toBe(1)
    expect(main.stdout).toMatch(/^::error::svc is not installed in .* \(no node_modules\/\.bin\/svc\)/m)
    expect(main.state).toEqual({})
    const post = await run.post({}, 'failure')
    expect(post).toMatchObject({ code: 0, stdout: 'svc was not started: nothing to stop\n' })
  })
})
