// Files on the simulated host: what cloud-init's write_files wrote at bootstrap and what in-place updates wrote since
// (the desired KubeadmConfig's spec.files). The host keeps each file as the sha256 of its content, shown on its Node
// (HOST_FILES_ANNOTATION), so a user checks a file through the workload cluster. Digests, never contents: files may
// come from Secrets (`contentFrom`), and annotations are limited to 256 KiB in total.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import YAML from 'yaml';
import type { KubeObject } from '@capi/apimachinery';
import { HOST_FILES_ANNOTATION, SECRET_VALUE_KEY } from '../api/constants';

/** A cloud-init `write_files` entry (the fields that decide what lands on disk). */
export interface WriteFile {
  path: string;
  content?: string;
  encoding?: string;
  append?: boolean;
}

/** Files on a host: path → `sha256:<hex digest of the content on disk>`. */
export type HostFiles = Record<string, string>;

export class HostFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostFileError';
  }
}

/** How a file's content is recorded on the host (and how to check one: compare with the Node's annotation). */
export const fileDigest = (content: string | Buffer): string =>
  `sha256:${createHash('sha256').update(content).digest('hex')}`;

/**
 * The bytes cloud-init writes for an entry (cloudinit/config/cc_write_files.py canonicalize_extraction /
 * extract_contents): base64 and gzip encodings are decoded; an unknown encoding is written as it is (cloud-init warns
 * and assumes text/plain); content that does not gunzip fails the write.
 */
export function decodeContent(f: WriteFile): Buffer {
  const content = f.content ?? '';
  const encoding = (f.encoding ?? '').toLowerCase().trim();
  const gunzip = (b: Buffer) => {
    try {
      return gunzipSync(b);
    } catch (e) {
      throw new HostFileError(`file ${f.path}: content is not ${encoding}: ${(e as Error).message}`);
    }
  };
  if (encoding === 'gz' || encoding === 'gzip') return gunzip(Buffer.from(content, 'binary'));
  if (['gz+base64', 'gzip+base64', 'gz+b64', 'gzip+b64'].includes(encoding))
    return gunzip(Buffer.from(content, 'base64'));
  if (encoding === 'b64' || encoding === 'base64') return Buffer.from(content, 'base64');
  return Buffer.from(content, 'utf8');
}

/**
 * What one write of `entries` leaves on a fresh disk, in order: a later entry of a path replaces it, one with `append`
 * adds to it.
 */
export function writeFiles(entries: WriteFile[]): HostFiles {
  const contents = new Map<string, Buffer>();
  for (const f of entries) {
    const bytes = decodeContent(f);
    const previous = f.append ? contents.get(f.path) : undefined;
    contents.set(f.path, previous ? Buffer.concat([previous, bytes]) : bytes);
  }
  const out: HostFiles = {};
  for (const [path, bytes] of contents) out[path] = fileDigest(bytes);
  return out;
}

/** The files a cloud-config document's `write_files` writes (`#cloud-config` bootstrap data). */
export function cloudInitFiles(document: string): HostFiles {
  let doc: unknown;
  try {
    doc = YAML.parse(document);
  } catch (e) {
    throw new HostFileError(`bootstrap data is not a cloud-config document: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new HostFileError('bootstrap data is not a cloud-config document: not a mapping');
  const list = (doc as { write_files?: unknown }).write_files ?? [];
  if (!Array.isArray(list)) throw new HostFileError('cloud-config write_files is not a list');
  return writeFiles(
    list.map((entry, i) => {
      const f = entry as Partial<WriteFile> | null;
      if (typeof f?.path !== 'string' || !f.path) throw new HostFileError(`cloud-config write_files[${i}] has no path`);
      if (f.content !== undefined && typeof f.content !== 'string')
        throw new HostFileError(`cloud-config write_files[${i}] (${f.path}): content is not a string`);
      return f as WriteFile;
    }),
  );
}

/** The host's files after an update wrote `written` over `current` (other files stay, as on a disk). */
export function withWrittenFiles(current: HostFiles, written: HostFiles): HostFiles {
  const merged = { ...current, ...written };
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((p) => [p, merged[p]]),
  );
}

/** The files recorded on a simulated host's Node (empty when absent or unreadable). */
export function hostFilesOf(node: KubeObject): HostFiles {
  const raw = node.metadata.annotations?.[HOST_FILES_ANNOTATION];
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as HostFiles;
  } catch {
    return {};
  }
}

/**
 * The files a VM's cloud-init writes from its bootstrap data Secret (key `value`, `format` cloud-config or absent), as
 * a Cluster API bootstrap provider hands it over (the Machine's spec.bootstrap.dataSecretName).
 */
export function bootstrapDataFiles(secret: KubeObject | undefined, ref: string): HostFiles {
  if (!secret) throw new HostFileError(`bootstrap data Secret ${ref} not found`);
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const decode = (key: string) => (data[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString());
  const format = decode('format') ?? 'cloud-config';
  if (format !== 'cloud-config')
    throw new HostFileError(`bootstrap data Secret ${ref} has format ${format}: only cloud-config is simulated`);
  const value = decode(SECRET_VALUE_KEY);
  if (value === undefined) throw new HostFileError(`bootstrap data Secret ${ref} has no key "${SECRET_VALUE_KEY}"`);
  try {
    return cloudInitFiles(value);
  } catch (e) {
    throw new HostFileError(`bootstrap data Secret ${ref}: ${(e as Error).message}`);
  }
}
