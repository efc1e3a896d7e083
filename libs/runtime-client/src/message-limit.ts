// Bounds the text an extension controls before any consumer sees it. Hook response messages end up in conditions
// (the Machine's Updating and Ready), whose message the CRD schema bounds (upstream api/core/v1beta2/condition_types.go:
// MaxLength=10240; metav1.Condition 32768): an unbounded one makes the status write fail (422 on kube-apiserver, 413
// past the request size) and leaves the object's status stuck. Upstream does not truncate; its schema rejects instead.

/** The most characters (UTF-16 code units, never fewer than the characters kube counts) kept of an extension's text. */
export const MAX_EXTENSION_MESSAGE_CHARS = 10240;

const suffix = (more: number) => `... (truncated, ${more} more characters)`;

/** Code points in s[from..]: what a reader would call characters (a surrogate pair is one). */
function codePointsFrom(s: string, from: number): number {
  let n = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * `message` unchanged when it fits in `max` characters; otherwise its start and `... (truncated, N more characters)`,
 * `max` characters in all (only the suffix when `max` is shorter than it). A surrogate pair is never split.
 */
export function boundExtensionMessage(message: string, max = MAX_EXTENSION_MESSAGE_CHARS): string {
  if (message.length <= max) return message;
  // The suffix for the longest possible count: the real one is never longer, so the result stays within max.
  let keep = Math.max(0, max - suffix(message.length).length);
  const last = message.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  return message.slice(0, keep) + suffix(codePointsFrom(message, keep));
}
