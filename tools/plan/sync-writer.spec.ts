import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createSyncWriter, OutputClosedError, WriteSync } from './sync-writer';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('createSyncWriter', () => {
  it('writes every chunk completely, in order, as UTF-8', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-')), 'out.log');
    const fd = fs.openSync(file, 'w');
    try {
      const write = createSyncWriter(fd);
      write('## a\n\n');
      write('m1🟠🟡,m2\n');
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('## a\n\nm1🟠🟡,m2\n');
  });

  it('finishes partial writes and waits out a full pipe (EAGAIN) instead of queueing in memory', () => {
    const written: Buffer[] = [];
    let calls = 0;
    const fake: WriteSync = (_fd, buffer) => {
      calls++;
      if (calls === 2) throw errno('EAGAIN');
      const n = Math.min(3, buffer.length); // a pipe taking 3 bytes at a time
      written.push(Buffer.from(buffer.subarray(0, n)));
      return n;
    };
    createSyncWriter(1, fake, 0)('abcdefgh');
    expect(Buffer.concat(written).toString()).toBe('abcdefgh');
    expect(calls).toBe(4); // 3 bytes, EAGAIN, 3 bytes, 2 bytes
  });

  it('reports a closed reader (EPIPE) as OutputClosedError and rethrows other errors', () => {
    expect(() =>
      createSyncWriter(1, () => {
        throw errno('EPIPE');
      })('x'),
    ).toThrow(OutputClosedError);
    expect(() =>
      createSyncWriter(1, () => {
        throw errno('EBADF');
      })('x'),
    ).toThrow('EBADF');
  });
});
