/** POSIX path steps for the node filesystem browser (the API lists absolute `/` paths). Pure: tested in test/console/fs-path.test.ts. */

/** The breadcrumb of an absolute path: `/srv/data` → [{name:'/',path:'/'},{name:'srv',path:'/srv'},{name:'data',path:'/srv/data'}]. */
export function breadcrumbs(path: string): { name: string; path: string }[] {
  const parts = path.split('/').filter((p) => p !== '');
  const crumbs = [{ name: '/', path: '/' }];
  parts.forEach((name, i) => crumbs.push({ name, path: `/${parts.slice(0, i + 1).join('/')}` }));
  return crumbs;
}

/** The folder above; `/` stays `/`. */
export function parentPath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.length <= 1 ? '/' : `/${parts.slice(0, -1).join('/')}`;
}

/** A typed path made absolute and without a trailing slash (or null when it is not absolute). */
export function normalisePath(input: string): string | null {
  const t = input.trim();
  if (!t.startsWith('/')) return null;
  const parts = t.split('/').filter((p) => p !== '' && p !== '.');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else out.push(p);
  }
  return `/${out.join('/')}`;
}

/** Toggles a path in a selection (one path at most when `multiple` is false). */
export function togglePath(selected: readonly string[], path: string, multiple: boolean): string[] {
  if (selected.includes(path)) return selected.filter((p) => p !== path);
  return multiple ? [...selected, path] : [path];
}
