import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * Where the session lives: `$SVC_CONFIG_DIR/config.json`, else `$XDG_CONFIG_HOME/svc/config.json`, else
 * `~/.config/svc/config.json`. A file of its own, with nothing to load: `svc up --detach` reads it before the CLI loads
 * (cli/detach-start.ts).
 */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return join(env.SVC_CONFIG_DIR, 'config.json')
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(base, 'svc', 'config.json')
}
