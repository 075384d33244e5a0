/**
 * Which of a restore's selected archive paths (or databases) an archive holds. A path is
 * matched by an entry at it or below it; a folder that merely leads to it does not count, so a
 * misspelt file under an existing folder is still reported.
 */
export class SelectionMatch {
  readonly #pending: Set<string>;

  constructor(selected: readonly string[]) {
    this.#pending = new Set(selected);
  }

  see(path: string): void {
    if (this.#pending.size === 0) return;
    for (const s of this.#pending) if (path === s || path.startsWith(`${s}/`)) this.#pending.delete(s);
  }

  /** Selected paths no entry matched. */
  unmatched(): string[] {
    return [...this.#pending];
  }
}

/** The refusal's text: the selection that matches nothing, named. */
export function nothingSelectedText(field: string, unmatched: readonly string[]): string {
  const shown = unmatched
    .slice(0, 10)
    .map((p) => JSON.stringify(p))
    .join(', ');
  return (
    `${field}: ${shown}${unmatched.length > 10 ? ` (and ${unmatched.length - 10} more)` : ''}` +
    ` ${unmatched.length === 1 ? 'is' : 'are'} not in this backup; nothing was restored`
  );
}
