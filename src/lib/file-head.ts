import { closeSync, openSync, readSync } from 'node:fs';

/** The first `n` bytes of a file (fewer if it is shorter), without reading the rest; throws the file system's error. */
export function readHead(file: string, n: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(n);
    return head.subarray(0, readSync(fd, head, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}
