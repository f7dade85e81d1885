// The one bounded file read: every file verispec reads on a user's behalf (spec files, `validate`'s
// document, `webhook verify --body`) is read to at most 10 MiB, so /dev/zero, a FIFO or a huge file fails
// fast instead of growing without end.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** The most read of any one file: 10 MiB, the client's default `maxResponseBytes`. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

/** "<name> is larger than 10,485,760 bytes (10 MiB), the most <who> reads". */
export const tooLargeMessage = (name: string, who: string) =>
  `${name} is larger than ${MAX_READ_BYTES.toLocaleString("en-US")} bytes (10 MiB), the most ${who} reads`;

/** The file's bytes, or undefined when it has more than `max`: a regular file by its size, anything else (a pipe, a device) once `max` is passed. */
export function readAtMost(path: string, max = MAX_READ_BYTES): Buffer | undefined {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > max) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks);
      chunks.push(chunk.subarray(0, read));
      if ((size += read) > max) return undefined;
    }
  } finally {
    closeSync(fd);
  }
}
