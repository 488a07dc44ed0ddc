import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(() => t?.stop())

describe('signup and login', () => {
  test('signup answers a JWT and an unverified user; the verification mail lands in the local outbox', async () => {
    const email = `Alice-${Date.now()}@Example.test`
    const { status, body } = await t.call('/auth/signup', { body: { email, password: 'hunter2hunter2' } })
    expect(status).toBe(201)
    expect(body.user).toMatchObject({ email: email.toLowerCase(), email_verified: false })
    expect(body.token.split('.')).toHaveLength(3)

    const outbox = await t.call(`/dev/outbox?email=${encodeURIComponent(email)}`)
    expect(outbox.body.messages).toHaveLength(1)
    expect(outbox.body.messages[0].body).toContain(outbox.body.messages[0].token)
    expect(outbox.body.messages[0].used).toBe(false)

    const verified = await t.call('/auth/verify-email', { body: { token: outbox.body.messages[0].token } })
    expect(verified.body).toMatchObject({ verified: true, user: { email_verified: true } })
    // The address is verified: the mail has nothing left to do (the dashboard then only counts it).
    const after = await t.call(`/dev/outbox?email=${encodeURIComponent(email)}`)
    expect(after.body.messages[0].used).toBe(true)
    // Verifying again is harmless.
    expect((await t.call('/auth/verify-email', { body: { token: outbox.body.messages[0].token } })).status).toBe(200)
  })

  test('409 email already registered (case-insensitive)', async () => {
    const { email } = await t.signup()
    const { status, body } = await t.call('/auth/signup', {
      body: { email: email.toUpperCase(), password: 'something long' },
    })
    expect(status).toBe(409)
    expect(body).toEqual({ error: 'email already registered' })
  })

  test('login with the right password answers a JWT; a wrong one 401 unauthorized', async () => {
    const { email } = await t.signup()
    const ok = await t.call('/auth/login', { body: { email, password: 'correct horse battery' } })
    expect(ok.status).toBe(200)
    const me = await t.call('/auth/me', { jwt: ok.body.token })
    expect(me.body).toMatchObject({ user: { email }, environment: 'production', via: 'jwt', scopes: null })
    expect(await t.call('/auth/login', { body: { email, password: 'wrong password' } })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    })
    expect(
      await t.call('/auth/login', { body: { email: 'nobody@example.test', password: 'whatever1' } }),
    ).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
  })

  test.each([
    [{ email: 'not-an-email', password: 'long enough' }, 'email: not an email address'],
    [{ email: 'a@b.test', password: 'short' }, 'password: at least 8 characters'],
    [{ email: 'a@b.test', password: 'long enough', admin: true }, 'unknown field "admin"'],
    [{ email: 5, password: 'long enough' }, 'email: not an email address'],
  ])('signup %j → 400', async (body, error) => {
    expect(await t.call('/auth/signup', { body })).toMatchObject({ status: 400, body: { error } })
  })

  test('a bad verification token → 400', async () => {
    expect(await t.call('/auth/verify-email', { body: { token: 'nope' } })).toMatchObject({
      status: 400,
      body: { error: 'invalid or expired verification token' },
    })
  })
})

describe('API keys', () => {
  test('created with a JWT, the secret shown once and stored hashed, listed and revoked', async () => {
    const { jwt } = await t.signup()
    const created = await t.call('/auth/api-keys', {
      jwt,
      environment: 'development',
      body: { name: 'ci', preset: 'readonly' },
    })
    expect(created.status).toBe(201)
    expect(created.body.key).toMatch(/^svc_sandbox_/)
    expect(created.body).toMatchObject({
      environment: 'development',
      scopes: ['apis:read', 'endpoints:read', 'domains:read', 'stats:read', 'settlements:read', 'openapi:read'],
    })
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true)

    const row = await t.server.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(created.body.key)

    const list = await t.call('/auth/api-keys', { jwt, environment: 'development' })
    expect(list.body.api_keys.map((k: any) => k.id)).toEqual([created.body.id])
    expect(JSON.stringify(list.body)).not.toContain(created.body.key)
    // Production keys are another list.
    expect((await t.call('/auth/api-keys', { jwt })).body.api_keys).toEqual([])

    const me = await t.call('/auth/me', { host: 'development', key: created.body.key })
    expect(me.body).toMatchObject({ via: 'api_key', environment: 'development' })

    const revoked = await t.call(`/auth/api-keys/${created.body.id}`, {
      method: 'DELETE',
      jwt,
      environment: 'development',
    })
    expect(revoked.body.revoked_at).toBeTruthy()
    expect(await t.call('/auth/me', { host: 'development', key: created.body.key })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
  })

  test('scope names and presets mix; unknown names are refused', async () => {
    const { jwt } = await t.signup()
    const mixed = await t.call('/auth/api-keys', { jwt, body: { name: 'm', scopes: ['analytics', 'apis:write'] } })
    expect(mixed.body.scopes).toEqual(['apis:write', 'stats:read', 'settlements:read'])
    expect(mixed.body.key).toMatch(/^svc_live_/)
    const bad = await t.call('/auth/api-keys', { jwt, body: { name: 'm', scopes: ['apis:delete'] } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^scopes: unknown scope or preset "apis:delete"/)
    expect((await t.call('/auth/api-keys', { jwt, body: { name: 'm' } })).body).toEqual({
      error: 'scopes: give scopes or a preset',
    })
  })

  test('a JWT without X-Svc-Environment is in the environment of the host it came to; the header wins over the host', async () => {
    const { jwt } = await t.signup()
    // sandbox.localhost without the header: a Sandbox key (issue 9, item 12).
    const onSandbox = await t.call('/auth/api-keys', {
      host: 'development',
      jwt,
      body: { name: 'sandbox host', scopes: ['apis:read'] },
    })
    expect(onSandbox.status).toBe(201)
    expect(onSandbox.body).toMatchObject({ environment: 'development', key: expect.stringMatching(/^svc_sandbox_/) })
    expect((await t.call('/auth/me', { host: 'development', jwt })).body).toMatchObject({
      environment: 'development',
      via: 'jwt',
    })
    // api.localhost without the header: production.
    const onApi = await t.call('/auth/api-keys', { jwt, body: { name: 'api host', scopes: ['apis:read'] } })
    expect(onApi.body).toMatchObject({ environment: 'production', key: expect.stringMatching(/^svc_live_/) })
    // The header decides on either host (a JWT may target the Sandbox on either control-plane host).
    const liveOnSandbox = await t.call('/auth/api-keys', {
      host: 'development',
      jwt,
      environment: 'production',
      body: { name: 'header', scopes: ['apis:read'] },
    })
    expect(liveOnSandbox.body.key).toMatch(/^svc_live_/)
    const sandboxOnApi = await t.call('/auth/api-keys', {
      jwt,
      environment: 'development',
      body: { name: 'header', scopes: ['apis:read'] },
    })
    expect(sandboxOnApi.body.key).toMatch(/^svc_sandbox_/)
    // Each list has its own keys.
    const names = async (options: { host?: 'development'; environment?: string }) =>
      (await t.call('/auth/api-keys', { jwt, ...options })).body.api_keys.map((k: { name: string }) => k.name).sort()
    expect(await names({ host: 'development' })).toEqual(['header', 'sandbox host'])
    expect(await names({})).toEqual(['api host', 'header'])
  })

  test('an API key cannot manage keys: 403 jwt required', async () => {
    const { jwt } = await t.signup()
    const key = await t.createKey(jwt, 'production', ['apis:read'])
    expect(await t.call('/auth/api-keys', { key })).toMatchObject({ status: 403, body: { error: 'jwt required' } })
    expect(await t.call('/auth/api-keys', { key, body: { name: 'x', scopes: ['apis:read'] } })).toMatchObject({
      status: 403,
      body: { error: 'jwt required' },
    })
  })

  test('key and base URL must pair: 401 invalid token otherwise', async () => {
    const { jwt } = await t.signup()
    const live = await t.createKey(jwt, 'production', ['apis:read'])
    const sandbox = await t.createKey(jwt, 'development', ['apis:read'])
    expect(await t.call('/auth/me', { host: 'development', key: live })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
    expect(await t.call('/auth/me', { host: 'production', key: sandbox })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
    // A live key asking for development fails at once; the header never switches a key's environment.
    expect(await t.call('/auth/me', { key: live, environment: 'development' })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
    expect((await t.call('/auth/me', { key: live, environment: 'production' })).status).toBe(200)
    expect(await t.call('/auth/me', { key: 'svc_live_madeup' })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
  })

  test('unverified accounts cannot write: 403 email verification required', async () => {
    const { jwt } = await t.signup({ verified: false })
    expect(await t.call('/auth/api-keys', { jwt, body: { name: 'x', scopes: ['apis:read'] } })).toMatchObject({
      status: 403,
      body: { error: 'email verification required' },
    })
  })
})

describe('credentials', () => {
  test('no credentials → 401 unauthorized; a bad JWT → 401 invalid token; a bad environment header → 400', async () => {
    expect(await t.call('/auth/me')).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
    expect(await t.call('/auth/me', { jwt: 'not.a.jwt' })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
    const { jwt } = await t.signup()
    expect(await t.call('/auth/me', { jwt, environment: 'staging' })).toMatchObject({
      status: 400,
      body: { error: 'X-Svc-Environment must be "production" or "development"' },
    })
    // JWT clients may target Sandbox on either host.
    expect((await t.call('/auth/me', { jwt, environment: 'development' })).body.environment).toBe('development')
    expect((await t.call('/auth/me', { jwt, environment: 'development', host: 'development' })).body.environment).toBe(
      'development',
    )
  })
})
