/** What a run's state allows. Pure. */

/** Queued or running: shown with a progress bar, can be cancelled, cannot be deleted. */
export function isActive(state: string): boolean {
  return state === 'queued' || state === 'running';
}

/** Only these records hold an artifact to download, restore, verify or replicate. */
export function hasArtifact(state: string): boolean {
  return state === 'success' || state === 'partial';
}

/** Several databases in one artifact (docs/artifact-format.md): its file name says so. */
export function isDumpArchive(fileName: string): boolean {
  return /\.dumps\.tar(\.|$)/.test(fileName);
}

/**
 * The databases of a several-database artifact from its contents listing: one entry per
 * database, `<database>.<dump extension>`, at the top.
 */
export function databasesOf(paths: readonly string[]): string[] {
  return paths
    .filter((p) => !p.includes('/') && p.includes('.'))
    .map((p) => p.slice(0, p.lastIndexOf('.')))
    .filter((d) => d !== '');
}
