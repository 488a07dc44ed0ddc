import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseDecimalAmount } from '../../cli/amounts.js'
import { withHostsBlock } from '../../cli/commands/hosts.js'
import { configPath, writeSession } from '../../cli/config.js'
import { resolveSettings } from '../../cli/settings.js'

const emptyDir = () => mkdtempSync(join(tmpdir(), 'svc-settings-'))

describe('resolveSettings: flags, then environment variables, then the saved session', () => {
  test('defaults: production at http://api.localhost:4020; the Sandbox with --sandbox, SVC_ENVIRONMENT or SVC_SANDBOX', () => {
    const env = { SVC_CONFIG_DIR: emptyDir() }
    expect(resolveSettings({}, env)).toMatchObject({
      baseUrl: 'http://api.localhost:4020',
      environment: 'production',
      jwt: undefined,
      apiKey: undefined,
    })
    const sandbox = { baseUrl: 'http://sandbox.localhost:4020', environment: 'development' }
    expect(resolveSettings({ sandbox: true }, env)).toMatchObject(sandbox)
    expect(resolveSettings({}, { ...env, SVC_ENVIRONMENT: 'development' })).toMatchObject(sandbox)
    expect(resolveSettings({}, { ...env, SVC_SANDBOX: 'true' })).toMatchObject(sandbox)
    expect(resolveSettings({}, { ...env, SVC_SANDBOX: '1' })).toMatchObject(sandbox)
    expect(resolveSettings({}, { ...env, SVC_SANDBOX: '0' })).toMatchObject({ environment: 'production' })
    expect(() => resolveSettings({}, { ...env, SVC_ENVIRONMENT: 'staging' })).toThrow(
      'SVC_ENVIRONMENT must be "production" or "development", got "staging"',
    )
  })

  test("an API key's prefix picks the base URL; SVC_BASE_URL and --base-url win", () => {
    const env = { SVC_CONFIG_DIR: emptyDir() }
    expect(resolveSettings({}, { ...env, SVC_API_KEY: 'svc_sandbox_abc' }).baseUrl).toBe(
      'http://sandbox.localhost:4020',
    )
    expect(resolveSettings({ sandbox: true }, { ...env, SVC_API_KEY: 'svc_live_abc' }).baseUrl).toBe(
      'http://api.localhost:4020',
    )
    expect(
      resolveSettings({}, { ...env, SVC_API_KEY: 'svc_sandbox_abc', SVC_BASE_URL: 'http://localhost:5000/' }).baseUrl,
    ).toBe('http://localhost:5000')
    expect(
      resolveSettings(
        { baseUrl: 'http://api.localhost:6000', apiKey: 'svc_live_flag' },
        { ...env, SVC_API_KEY: 'svc_live_env', SVC_BASE_URL: 'http://localhost:5000' },
      ),
    ).toMatchObject({
      baseUrl: 'http://api.localhost:6000',
      apiKey: 'svc_live_flag',
    })
    expect(() => resolveSettings({}, { ...env, SVC_BASE_URL: 'api.localhost' })).toThrow(
      'SVC_BASE_URL is not a URL: "api.localhost"',
    )
  })

  test('the saved session gives the JWT and base URL unless a flag or variable says otherwise; its port carries over', () => {
    const env = { SVC_CONFIG_DIR: emptyDir() }
    writeSession(env, {
      jwt: 'saved.jwt',
      email: 'a@example.test',
      base_url: 'http://api.localhost:5001',
      environment: 'production',
    })
    expect(resolveSettings({}, env)).toMatchObject({
      baseUrl: 'http://api.localhost:5001',
      environment: 'production',
      jwt: 'saved.jwt',
    })
    expect(resolveSettings({}, { ...env, SVC_JWT: 'env.jwt' }).jwt).toBe('env.jwt')
    expect(resolveSettings({ jwt: 'flag.jwt' }, { ...env, SVC_JWT: 'env.jwt' }).jwt).toBe('flag.jwt')
    expect(resolveSettings({ sandbox: true }, env)).toMatchObject({
      baseUrl: 'http://sandbox.localhost:5001',
      environment: 'development',
    })
    expect(resolveSettings({}, { ...env, SVC_BASE_URL: 'http://sandbox.localhost:5002' })).toMatchObject({
      baseUrl: 'http://sandbox.localhost:5002',
      environment: 'development',
    })
  })

  test('the config file: $SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc', () => {
    expect(configPath({ SVC_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/c/config.json')
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/svc/config.json')
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/svc/config.json')
  })
})

describe('parseDecimalAmount', () => {
  test('USDC decimals to atomic units, refusing what is not a positive amount', () => {
    expect(parseDecimalAmount('0.01', '--price')).toBe('10000')
    expect(parseDecimalAmount('1', '--price')).toBe('1000000')
    expect(parseDecimalAmount('12.345678', '--price')).toBe('12345678')
    for (const bad of ['abc', '', '-1', '1e3', '0', '0.000', '.5', '0.0000001'])
      expect(() => parseDecimalAmount(bad, '--price'), bad).toThrow(/^--price/)
  })
})

describe('withHostsBlock', () => {
  test('appends one block, replaces it in place later, keeps every other line', () => {
    const once = withHostsBlock('127.0.0.1 localhost', ['api.localhost'])
    expect(once).toBe('127.0.0.1 localhost\n# svc begin\n127.0.0.1 api.localhost\n# svc end\n')
    expect(withHostsBlock(once, ['api.localhost'])).toBe(once)
    const edited = `${once}10.0.0.1 other\n`
    expect(withHostsBlock(edited, ['api.localhost', 'a.dev.localhost'])).toBe(
      '127.0.0.1 localhost\n# svc begin\n127.0.0.1 api.localhost\n127.0.0.1 a.dev.localhost\n# svc end\n10.0.0.1 other\n',
    )
    expect(() => withHostsBlock('# svc begin\n127.0.0.1 x\n', ['api.localhost'])).toThrow(
      '"# svc begin" without "# svc end"',
    )
  })
})
