/**
 * The environment an external program (pg_dump, mysql, tar, zstd...) is started with: built
 * from a short list of the parent's variables, never the parent's whole environment. The
 * master's and the agent's environments hold what no tool needs (`BACKPLANE_SECRET_KEY`, a
 * database URL with its password, an agent token), and variables that would quietly change
 * what a tool does (`PGHOST`, `MYSQL_HOST`, `TAR_OPTIONS`, `ZSTD_CLEVEL`); a child's environment
 * is readable in /proc by every process of the same user for as long as it runs.
 */

/** Where programs and libraries are found, whose files they are, and the language and zone they speak. */
const KEPT = new Set(['PATH', 'HOME', 'TMPDIR', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ']);

/** Whether a variable of the parent's environment passes into a tool's: see {@link KEPT}, and the locale's `LC_*`. */
function keptForTools(name: string): boolean {
  return KEPT.has(name) || name.startsWith('LC_');
}

/** The tool's environment: the kept variables of `base`, then `extra` (which may override them). */
export function toolEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && keptForTools(name)) env[name] = value;
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}
