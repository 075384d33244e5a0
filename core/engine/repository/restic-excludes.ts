import { isExcluded } from '../archive/tar-walk.ts';

/**
 * Backplane's exclude patterns (archive/tar-walk.ts, `path.matchesGlob`) as restic `--exclude`
 * patterns, so a task excludes the same files in both modes.
 *
 * The tar walk matches a pattern without `/` against the base name of each path it visits, one
 * with `/` against the whole absolute path, and does not descend into an excluded folder. restic
 * 0.14 matches a pattern against every run of path components, ancestors of the source path
 * included: a bare `cache` would drop the whole of a source `/var/cache/app`, and `*.d` all of
 * `/etc/nginx/conf.d`. So a relative pattern is anchored below each source path
 * (`/var/cache/app/**\/cache`: `**` spans any number of folders, none included), and a source
 * path the walk would exclude itself is left out of the backup (`sourcesKept`). Braces
 * (`*.{log,tmp}`), which restic lacks, become one pattern per alternative, and a negated class
 * `[!a]` becomes Go's `[^a]`.
 *
 * Where the two still differ (docs/restic-driver.md): `*`, `?` and `**` match a leading dot in
 * restic and not in matchesGlob; a relative pattern with a `/` in it (`cache/tmp`) matches at any
 * depth below a source path in restic and nowhere in the tar walk; an absolute pattern naming a
 * folder above a source path drops that source in restic only; numeric ranges (`{1..3}`) and
 * extglobs (`+(a|b)`) are matchesGlob's only.
 */

/** Alternatives one pattern may expand to; past this a pattern is passed on as written. */
const MAX_EXPANSION = 256;

/** restic's patterns for these exclude patterns and (absolute) source paths. */
export function resticExcludes(patterns: readonly string[], sources: readonly string[]): string[] {
  const out = new Set<string>();
  for (const pattern of patterns) {
    if (pattern === '') continue;
    for (const expanded of expandBraces(pattern)) {
      const p = negatedClasses(expanded);
      if (p.startsWith('/')) out.add(p);
      else
        for (const source of sources)
          out.add(`${escapeGlob(source).replace(/\/$/, '')}/**/${p.replace(/^(\*\*\/)+/, '')}`);
    }
  }
  return [...out];
}

/** The source paths the tar walk would not exclude (it tests each source path itself too). */
export function sourcesKept(sources: readonly string[], patterns: readonly string[]): string[] {
  return sources.filter((source) => !isExcluded(source, patterns));
}

/** `a{b,c{d,e}}f` as `abf`, `acdf`, `acef`; a brace pair without a top-level comma stays literal. */
export function expandBraces(pattern: string): string[] {
  const found = firstAlternation(pattern);
  if (!found) return [pattern];
  const { start, end, alternatives } = found;
  const prefix = pattern.slice(0, start);
  const suffix = pattern.slice(end + 1);
  const all = alternatives.flatMap((alt) => expandBraces(prefix + alt + suffix));
  return all.length > MAX_EXPANSION ? [pattern] : all;
}

function firstAlternation(pattern: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = 0; start < pattern.length; start++) {
    if (pattern[start] === '\\') {
      start++;
      continue;
    }
    if (pattern[start] !== '{') continue;
    let depth = 0;
    const cuts = [start];
    for (let i = start; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === ',' && depth === 1) cuts.push(i);
      else if (c === '}' && --depth === 0) {
        if (cuts.length === 1) break; // `{x}`: literal, look for the next pair
        cuts.push(i);
        const alternatives = cuts.slice(1).map((cut, k) => pattern.slice(cuts[k]! + 1, cut));
        return { start, end: i, alternatives };
      }
    }
  }
  return undefined;
}

/** `[!...]` as `[^...]`: Go's filepath.Match knows only the caret. */
function negatedClasses(pattern: string): string {
  return pattern.replace(/(^|[^\\])\[!/g, '$1[^');
}

/** A path as a pattern matching only itself: Go's filepath.Match takes `\` as the escape on Unix. */
function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]]/g, '\\$&');
}
