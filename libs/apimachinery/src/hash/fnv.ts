// FNV-1a (Go's hash/fnv New32a, as upstream hashes label values in util/labels/format/helpers.go): names, label values
// and cache keys.

/** 32-bit FNV-1a over the UTF-8 bytes of `text` (upstream hashes with FNV-32a too), as an unsigned integer. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  if (Buffer.byteLength(text, 'utf8') === text.length) {
    // ASCII (almost all Kubernetes content): char codes are the UTF-8 bytes, no encoding needed.
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  } else {
    for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
  }
  return h >>> 0;
}
