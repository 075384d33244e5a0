/**
 * What `restic copy` did, read from its text (0.14 has no JSON for copy): per source snapshot a
 * `snapshot <src> of [...] at ...` line, then `snapshot <new> saved`, or `skipping source
 * snapshot <src>, was already copied to snapshot <dst>`. Ids are the 8-digit short ids restic
 * prints; every command takes them.
 */

export interface ResticCopied {
  source: string;
  target: string;
  /** The target held a copy already (restic compares the snapshots' contents), so nothing was copied. */
  alreadyCopied: boolean;
}

export class CopyReport {
  readonly copied: ResticCopied[] = [];
  #source: string | undefined;

  line(line: string): void {
    const skipped = /^skipping source snapshot ([0-9a-f]+), was already copied to snapshot ([0-9a-f]+)/.exec(line);
    if (skipped) {
      this.copied.push({ source: skipped[1]!, target: skipped[2]!, alreadyCopied: true });
      return;
    }
    const source = /^snapshot ([0-9a-f]+) of \[/.exec(line);
    if (source) {
      this.#source = source[1];
      return;
    }
    const saved = /^snapshot ([0-9a-f]+) saved$/.exec(line);
    if (saved && this.#source) {
      this.copied.push({ source: this.#source, target: saved[1]!, alreadyCopied: false });
      this.#source = undefined;
    }
  }
}
