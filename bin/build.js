// `npm run build`: transpiles the TypeScript sources to dist/ (one .js per file, same layout) with esbuild, in about
// 0.2 s, so the `svc` command (bin/svc.js) starts without a TypeScript loader. npm runs it on `npm ci`/`npm install`
// (`prepare`, which `npm pack` runs too); the test setup runs it before every test run, `npm start` before it starts.
// `--declarations` (`prepack`, so on `npm pack`) also emits the `.d.ts` of the package's entry points to types/ with
// tsc (tsconfig.build.json: sdk/index, sdk/testing, sdk/register and what they import; about 10 s): in a folder of
// their own, since `npm pack` runs `prepare` after `prepack`. Type checking stays `npm run typecheck`.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { proolInstancePatch } from '../patches/prool-instance.js'
import { viemNativeKeysPatch } from '../patches/viem-native-keys.js'
import { viemRecoverPublicKeyPatch } from '../patches/viem-recover-public-key.js'
import { viemTypedDataHashPatch } from '../patches/viem-typed-data-hash.js'
import { x402CoreUtilsPatch } from '../patches/x402-core-utils.js'
import { x402ChannelIdPatch } from '../patches/x402-evm-channel-id.js'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const sourceDirs = ['core', 'chain', 'server', 'sdk', 'mcp', 'tui', 'cli', 'fixtures']
// The shipped seeds go along: `svc up --seed x402-e2e` finds them by name (sdk/seed.ts).
const assets = ['server/openapi.yaml', 'fixtures/demo-seed.yaml', 'fixtures/x402-e2e.yaml']

/** Every source file and asset, relative to the repo. */
export function sources() {
  const files = [...assets]
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name)
      // The paywall page's browser script is bundled on its own (bundlePaywall), never run by Node.
      if (path === join('server', 'gateway', 'paywall', 'browser')) continue
      if (statSync(join(root, path)).isDirectory()) walk(path)
      else if (/\.(ts|tsx)$/.test(name) && !/\.d\.ts$/.test(name)) files.push(path)
    }
  }
  for (const dir of sourceDirs) walk(dir)
  return files
}

/** Builds into a temporary directory and swaps it in, so a running `svc` command never sees half a build. */
export async function build() {
  const { build: esbuild, buildSync } = await import('esbuild')
  const files = sources()
  const temp = join(root, `dist.tmp-${process.pid}-${Date.now()}`)
  buildSync({
    entryPoints: files.filter((file) => /\.tsx?$/.test(file)).map((file) => join(root, file)),
    outdir: temp,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    logLevel: 'error',
  })
  for (const asset of assets) {
    mkdirSync(dirname(join(temp, asset)), { recursive: true })
    copyFileSync(join(root, asset), join(temp, asset))
  }
  await bundleCommand(esbuild, temp)
  await bundlePaywall(esbuild, temp)
  writeFileSync(join(temp, 'package.json'), '{ "type": "module" }\n')
  swapIn(temp, 'dist')
}

/**
 * The `svc` command as one bundle (dist/cli/cli.js, with chunks for what it loads later: the dashboard, the server,
 * the MCP server): Node then reads a few files instead of some 1,500 modules of its dependencies, which halves the
 * time `svc up` takes to its ready line. Left out: native and optional modules, and the Anvil binary's package (found
 * on disk at run time). The SDK entry points stay per file (dist/sdk/…), on the user's own copies of viem and x402;
 * the sandbox `startSandbox()` starts in its process is svc's own, so it loads from the bundle too (dist/cli/start.js,
 * the start-up's entry point, sharing the command's chunks: sdk/testing.ts): a test file's CPU from `import` to its
 * sandbox went from 2.1–2.3 s to 1.5–1.6 s (5 paired runs on a busy 2-core machine).
 */
async function bundleCommand(build, temp) {
  await build({
    entryPoints: { cli: join(root, 'cli', 'cli.ts'), start: join(root, 'server', 'start', 'index.ts') },
    outdir: join(temp, 'cli'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    external: ['better-sqlite3', 'react-devtools-core', '@foundry-rs/*', 'solc', 'fsevents'],
    // CommonJS dependencies (express …) call require(); in an ES module it comes from createRequire.
    banner: {
      js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
    },
    // Plugins need esbuild's asynchronous build.
    plugins: [
      viemRecoverPublicKeyPatch,
      viemNativeKeysPatch,
      viemTypedDataHashPatch,
      x402ChannelIdPatch,
      x402CoreUtilsPatch,
      proolInstancePatch,
    ],
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  })
}

/**
 * The paywall page's script (server/gateway/paywall/browser/main.ts with viem and x402's client schemes) as one
 * minified file for browsers, dist/paywall/paywall.js: the gateway serves it at /__svc/paywall.js, so the page loads
 * nothing from anywhere else.
 */
async function bundlePaywall(build, temp) {
  await build({
    entryPoints: [join(root, 'server', 'gateway', 'paywall', 'browser', 'main.ts')],
    outfile: join(temp, 'paywall', 'paywall.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
}

/** Emits the declarations of the package's entry points (tsconfig.build.json) into types/, swapped in like dist/. */
export function buildDeclarations() {
  const temp = join(root, `types.tmp-${process.pid}-${Date.now()}`)
  try {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', temp], {
      cwd: root,
      stdio: 'inherit',
    })
  } catch (error) {
    rmSync(temp, { recursive: true, force: true })
    throw error
  }
  swapIn(temp, 'types')
}

/** Replaces `root/name` with the finished `temp` directory. */
function swapIn(temp, name) {
  const old = join(root, `${name}.old-${process.pid}-${Date.now()}`)
  if (existsSync(join(root, name))) renameSync(join(root, name), old)
  try {
    renameSync(temp, join(root, name))
  } catch (error) {
    // Another process swapped in its build at the same moment: theirs is as good as ours.
    rmSync(temp, { recursive: true, force: true })
    if (!existsSync(join(root, name))) throw error
  }
  rmSync(old, { recursive: true, force: true })
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build()
  if (process.argv.includes('--declarations')) buildDeclarations()
}
