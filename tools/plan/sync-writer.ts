// Synchronous, complete writes to a file descriptor for the streamed rollout log.
// process.stdout on a pipe buffers writes in memory when the reader is slower than the simulation (which is
// synchronous and never yields): a 10,000-replica run queued gigabytes and died with ENOBUFS. Writing with
// fs.writeSync keeps memory flat; on a non-blocking pipe that is full (EAGAIN) it waits briefly and retries.
import * as fs from 'fs';

export type WriteSync = (fd: number, buffer: Uint8Array) => number;

export class OutputClosedError extends Error {
  constructor() {
    super('output closed by the reader');
    this.name = 'OutputClosedError';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Returns a function that writes each chunk completely before returning; EPIPE becomes OutputClosedError. */
export function createSyncWriter(fd: number, writeSync: WriteSync = fs.writeSync, waitMs = 5): (chunk: string) => void {
  return (chunk) => {
    let pending = Buffer.from(chunk, 'utf8');
    while (pending.length > 0) {
      try {
        pending = pending.subarray(writeSync(fd, pending));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') throw new OutputClosedError();
        if (code !== 'EAGAIN') throw e;
        Atomics.wait(sleeper, 0, 0, waitMs); // the reader is behind: let the pipe drain
      }
    }
  };
}
