/** Warnings kept in full: the record's text names these; the log has every one. */
const KEPT = 5;

/**
 * The warnings of one backup run (a source path missing, a file skipped), so a run that
 * succeeds despite them says so in its record, not only in its log. Master and agent runs
 * collect them the same way.
 */
export class RunWarnings {
  readonly #first: string[] = [];
  count = 0;

  add(message: string): void {
    this.count++;
    if (this.#first.length < KEPT) this.#first.push(message);
  }

  /** One line for the record's `errorMessage` ('' without warnings). */
  summary(): string {
    if (this.count === 0) return '';
    const more = this.count - this.#first.length;
    return `${this.count} warning${this.count === 1 ? '' : 's'}: ${this.#first.join('; ')}${more > 0 ? ` (and ${more} more; see the log)` : ''}`.slice(
      0,
      2000,
    );
  }
}

/** A record's text: what failed (targets of a partial run) first, then the warnings. */
export function withWarnings(errorMessage: string, warnings: string): string {
  return [errorMessage, warnings]
    .filter((s) => s !== '')
    .join('; ')
    .slice(0, 2000);
}
