/**
 * What went wrong in a restic run, told from its stderr: restic 0.14 exits 1 for every fatal error
 * (3 for a backup that skipped unreadable files, 2 for a dump of a path the snapshot lacks), so
 * the kind is read from the texts it prints, each checked against the real restic 0.14
 * (test/engine/restic.test.ts and docs/restic-driver.md list them).
 */

export type ResticErrorKind = 'wrong_password' | 'locked' | 'not_initialised' | 'damaged' | 'other';

/** The last part of stderr kept on an error; the message carries the last MESSAGE_TAIL of it. */
export const STDERR_TAIL = 4096;
const MESSAGE_TAIL = 1000;

/** Texts, most telling first: a wrong password hides everything else, a missing repository too. */
const KINDS: ReadonlyArray<readonly [ResticErrorKind, RegExp]> = [
  ['wrong_password', /wrong password or no key found/],
  ['not_initialised', /Is there a repository at the following location\?|unable to open config file/],
  ['locked', /repository is already locked/],
  // check's verdict, and what reading a changed or missing file of the repository prints (check,
  // restore, dump, ls): a pack whose hash differs, a blob or file failing authentication
  [
    'damaged',
    /repository contains errors|ciphertext verification failed|invalid data returned|Pack ID does not match|pack [0-9a-f]{64}: does not exist/,
  ],
];

/** Collects the kinds of error a run printed, line by line, so a long stderr needs no keeping. */
export class ResticErrorKinds {
  readonly #seen = new Set<ResticErrorKind>();

  add(line: string): void {
    for (const [kind, pattern] of KINDS) if (pattern.test(line)) this.#seen.add(kind);
  }

  get kind(): ResticErrorKind {
    for (const [kind] of KINDS) if (this.#seen.has(kind)) return kind;
    return 'other';
  }
}

export class ResticError extends Error {
  override name = 'ResticError';
  readonly kind: ResticErrorKind;
  /** restic's exit status, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The end of what restic printed on stderr (at most STDERR_TAIL characters). */
  readonly stderr: string;

  constructor(command: string, kind: ResticErrorKind, exitCode: number | null, stderr: string) {
    const text = stderr.trim();
    const tail = text.length > MESSAGE_TAIL ? `…${text.slice(-MESSAGE_TAIL)}` : text;
    const status = exitCode === null ? 'was killed' : `exited with ${exitCode}`;
    super(`restic ${command} ${status}${tail ? `: ${tail}` : ''}`);
    this.kind = kind;
    this.exitCode = exitCode;
    this.stderr = text;
  }
}

/**
 * The stable code a run's record shows for a restic failure of this kind
 * (docs/repositories.md#why-a-run-failed); '' for any other failure, whose text says why.
 */
const CODES: Record<ResticErrorKind, string> = {
  wrong_password: 'REPOSITORY_WRONG_PASSWORD',
  // a backup creates a missing repository; restores and verifications have no code yet
  not_initialised: '',
  locked: 'REPOSITORY_LOCKED',
  damaged: 'REPOSITORY_DAMAGED',
  other: '',
};

export function resticErrorCode(err: unknown): string {
  return err instanceof ResticError ? CODES[err.kind] : '';
}
