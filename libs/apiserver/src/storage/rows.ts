// How the Store writes an object's JSON into a row: small rows as TEXT, larger ones deflated into a BLOB.
import { constants as zlib, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Rows of at least this many characters of JSON are stored deflated (raw DEFLATE, fastest level): an object's JSON shrinks
 * 4-6x (repeated keys, managedFields), which is most of the database (the objects and the watch history) and, for a
 * ":memory:" database, of the API server's memory. Smaller rows stay text. Rows are told apart by type (BLOB vs
 * TEXT), so databases written before compression are read as they are.
 */
const COMPRESS_MIN_CHARS = 512;

/** A row's stored value for the JSON text `json`. */
export function encodeRow(json: string): string | Buffer {
  if (json.length < COMPRESS_MIN_CHARS) return json;
  return deflateRawSync(Buffer.from(json, 'utf8'), { level: zlib.Z_BEST_SPEED });
}

/** The JSON text of a row's stored value (deflated BLOB or plain TEXT). */
export function decodeRow(value: string | Buffer): string {
  return typeof value === 'string' ? value : inflateRawSync(value).toString('utf8');
}
