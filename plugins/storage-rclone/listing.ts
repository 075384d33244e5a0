import type { ObjectInfo } from '@backplane/plugin-api';
import { isNotFound } from './errors.ts';
import { checkPrefix, isInternalKey } from './keys.ts';
import type { LsjsonEntry } from './lsjson.ts';
import { COMMAND_DEADLINE_MS, STANDARD, type RcloneRunner } from './rclone-runner.ts';
import { filesIn } from './remote-files.ts';

/** list: every object whose key starts with `prefix`, internal names left out. */
export async function* listObjects(r: RcloneRunner, prefix: string): AsyncGenerator<ObjectInfo> {
  const { folder } = checkPrefix(prefix);
  const ready = await r.prepare();
  // rclone lists a *file* given in place of a folder as that one file: `a/b/` when `a/b` is
  // an object would come back as `a/b/b`. Such a listing is exactly one entry named like the
  // folder; that entry is held back until a second entry (a real folder) or a stat settles it.
  const folderName = folder.replace(/\/$/, '').split('/').pop() ?? '';
  let held: ObjectInfo | undefined;
  let entries = 0;
  for await (const { name, ...info } of filesIn(r, ready, folder, true)) {
    entries++;
    const wanted = info.key.startsWith(prefix) && !isInternalKey(info.key);
    if (entries === 1 && folder !== '' && name === folderName) {
      held = wanted ? info : undefined;
      continue;
    }
    if (held) {
      yield held;
      held = undefined;
    }
    if (wanted) yield info;
  }
  if (held) {
    const self = await r.run(ready, { op: 'stat', path: folder }, STANDARD, { deadlineMs: COMMAND_DEADLINE_MS });
    if (self.code !== 0 && !self.spawnError && !self.killedBy && isNotFound(self)) return;
    const statFailure = r.failure('lsjson', self, ready, STANDARD, COMMAND_DEADLINE_MS);
    if (statFailure) throw statFailure;
    const text = self.stdout.toString('utf8').trim();
    const isFolder = text !== '' && (JSON.parse(text) as LsjsonEntry).IsDir === true;
    if (isFolder) yield held;
  }
}
