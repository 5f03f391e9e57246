/**
 * A file the CLI could not read or write, as one plain line (issue 23: `backup /proc/x.db` printed
 * a raw `ENOENT: no such file or directory, open '/proc/.x.db.partial-123'`): what it was doing,
 * with which file, why in words, and the system's code for a search.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

/** Why a file operation failed, in words, from its error code. */
function why(code: string | undefined, file: string, writing: boolean): string {
  const dir = dirname(file);
  switch (code) {
    case 'ENOENT':
      if (!writing) return 'there is no such file';
      return existsSync(dir) ? `${dir} does not take new files` : `there is no folder ${dir}`;
    case 'ENOTDIR':
      return `a part of ${dir} is a file, not a folder`;
    case 'EACCES':
    case 'EPERM':
      return writing ? `this user may not write in ${dir}` : 'this user may not read it';
    case 'EROFS':
      return `${dir} is on a read-only file system`;
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return 'the system refused';
  }
}

/** `cannot <doing> <file>: <why> (<CODE>)`; an error without a code keeps its message. */
export function fileProblem(err: unknown, doing: string, file: string, writing: boolean): Error {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code) ? e.code : undefined;
  if (!code) {
    // SQLite says "unable to open database file" for a file it cannot create: the folder is the cause.
    if (/unable to open database file/i.test(e?.message ?? ''))
      return new Error(`cannot ${doing} ${file}: ${why(writing ? 'ENOENT' : 'EACCES', file, writing)}`);
    return e instanceof Error ? e : new Error(String(err));
  }
  return new Error(`cannot ${doing} ${file}: ${why(code, file, writing)} (${code})`);
}
