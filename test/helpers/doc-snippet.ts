import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The first fenced block of `lang` in a doc, written to `dir` as a module and imported: docs whose code must run. */
export async function importDocSnippet<T>(docPath: string, lang: string, dir: string): Promise<T> {
  const text = await readFile(docPath, 'utf8');
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text);
  if (!match) throw new Error(`${docPath} has no \`\`\`${lang} block`);
  const file = join(dir, `snippet-${Date.now()}.mjs`);
  await writeFile(file, match[1]!);
  return import(pathToFileURL(file).href) as Promise<T>;
}
