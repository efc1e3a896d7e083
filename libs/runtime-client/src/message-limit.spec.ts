import { boundExtensionMessage, MAX_EXTENSION_MESSAGE_CHARS } from './message-limit';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('boundExtensionMessage', () => {
  it('keeps a message that fits, up to the limit exactly', () => {
    expect(boundExtensionMessage('')).toBe('');
    expect(boundExtensionMessage('updating')).toBe('updating');
    const full = 'x'.repeat(MAX_EXTENSION_MESSAGE_CHARS);
    expect(boundExtensionMessage(full)).toBe(full);
  });

  it('bounds a 3 MB message to 10240 characters, the suffix saying how many were dropped', () => {
    const huge = 'a'.repeat(3 * 1024 * 1024);
    const out = boundExtensionMessage(huge);
    expect(out.length).toBeLessThanOrEqual(MAX_EXTENSION_MESSAGE_CHARS);
    const m = /^(a+)\.\.\. \(truncated, (\d+) more characters\)$/.exec(out);
    expect(m).not.toBeNull();
    expect(m![1].length + Number(m![2])).toBe(huge.length);
    // As much of the message as fits is kept.
    expect(out.length).toBeGreaterThan(MAX_EXTENSION_MESSAGE_CHARS - 50);
  });

  it('one character over the limit is truncated too', () => {
    const out = boundExtensionMessage('b'.repeat(MAX_EXTENSION_MESSAGE_CHARS + 1));
    expect(out.length).toBeLessThanOrEqual(MAX_EXTENSION_MESSAGE_CHARS);
    expect(out).toMatch(/^b+\.\.\. \(truncated, \d+ more characters\)$/);
  });

  it('never splits a surrogate pair, and counts a pair as one character', () => {
    const max = 40;
    for (let pad = 0; pad < 3; pad++) {
      const msg = 'z'.repeat(pad) + '😀'.repeat(30);
      const out = boundExtensionMessage(msg, max);
      expect(out.length).toBeLessThanOrEqual(max);
      const [kept, more] = /^(.*)\.\.\. \(truncated, (\d+) more characters\)$/su.exec(out)!.slice(1);
      expect(kept).toBe(msg.slice(0, kept.length));
      expect(kept).not.toMatch(LONE_SURROGATE);
      expect([...kept].length + Number(more)).toBe([...msg].length);
    }
  });

  it('a limit smaller than the suffix keeps nothing of the message but still says what was dropped', () => {
    expect(boundExtensionMessage('c'.repeat(100), 10)).toBe('... (truncated, 100 more characters)');
  });
});
