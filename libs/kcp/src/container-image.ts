// Container image references as upstream util/container/image.go handles them (on top of
// github.com/distribution/reference: its grammar, canonical vs. familiar names, docker.io normalisation).
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const NAME_ONLY = new RegExp(`^${NAME}$`);
const MAX_NAME_LENGTH = 255;
const DEFAULT_DOMAIN = 'docker.io';
const OCI_TAG_DISALLOWED = /[^-a-zA-Z0-9_.]/g;

interface Reference {
  /** The full name (domain/path). */
  name: string;
  tag?: string;
  digest?: string;
}

function parse(s: string): Reference {
  if (s === '') throw new Error('repository name must have at least one component');
  const m = REFERENCE.exec(s);
  if (!m) throw new Error(`invalid reference format: "${s}"`);
  if (m[1].length > MAX_NAME_LENGTH)
    throw new Error(`repository name must not be more than ${MAX_NAME_LENGTH} characters`);
  return { name: m[1], tag: m[2], digest: m[3] };
}

/** reference.splitDockerDomain: a first component with "." or ":" (or localhost, or upper case) is a domain. */
function splitDomain(name: string): { domain: string; path: string } {
  const i = name.indexOf('/');
  const first = i < 0 ? '' : name.slice(0, i);
  if (i < 0 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first))
    return { domain: DEFAULT_DOMAIN, path: i < 0 ? `library/${name}` : name };
  return { domain: first, path: name.slice(i + 1) };
}

const normalizedName = (name: string) => {
  const { domain, path } = splitDomain(name);
  return `${domain}/${path}`;
};

function render(r: Reference): string {
  return `${r.name}${r.tag ? `:${r.tag}` : ''}${r.digest ? `@${r.digest}` : ''}`;
}

/** reference.FamiliarString: docker.io and library/ dropped again. */
function familiar(r: Reference): string {
  const { domain, path } = splitDomain(r.name);
  let name = `${domain}/${path}`;
  if (domain === DEFAULT_DOMAIN) {
    name = path.startsWith('library/') && !path.slice('library/'.length).includes('/') ? path.slice(8) : path;
  }
  return render({ ...r, name });
}

export interface Image {
  repository: string;
  name: string;
  tag: string;
  digest: string;
}

/** container.ImageFromString: the reference must be canonical (reference.ParseNamed). */
export function imageFromString(image: string): Image {
  let r: Reference;
  try {
    r = parse(image);
  } catch (e) {
    throw new Error(`couldn't parse image name: ${(e as Error).message}`);
  }
  if (normalizedName(r.name) !== r.name)
    throw new Error(`couldn't parse image name: repository name must be canonical`);
  const slash = r.name.lastIndexOf('/');
  return {
    repository: slash < 0 ? '' : r.name.slice(0, slash),
    name: r.name.slice(slash + 1),
    tag: r.tag ?? '',
    digest: r.digest ?? '',
  };
}

/** Image.String(). */
export function imageString(i: Image): string {
  return `${i.repository}/${i.name}${i.tag ? `:${i.tag}` : ''}${i.digest ? `@${i.digest}` : ''}`;
}

/** container.SemverToOCIImageTag: characters an OCI tag cannot hold become "_" (v1.16.3+build1 → v1.16.3_build1). */
export const semverToOciImageTag = (version: string): string => version.replace(OCI_TAG_DISALLOWED, '_');

/** container.ModifyImageTag: the normalised name with the (OCI-safe) tag; digests cannot be re-tagged. */
export function modifyImageTag(image: string, tag: string): string {
  const ociTag = semverToOciImageTag(tag);
  let r: Reference;
  try {
    r = parse(image);
  } catch (e) {
    throw new Error(`failed to parse image name: ${(e as Error).message}`);
  }
  if (r.digest) throw new Error('image uses digest as version, cannot update tag');
  if (!new RegExp(`^${TAG}$`).test(ociTag)) throw new Error(`failed to update image tag: invalid tag format "${tag}"`);
  return render({ name: normalizedName(r.name), tag: ociTag });
}

/** container.ModifyImageRepository: `repository/<name>:<tag>` in familiar form; the image must be tagged. */
export function modifyImageRepository(image: string, repository: string): string {
  let parsed: Image;
  try {
    parsed = imageFromString(image);
  } catch (e) {
    throw new Error(`failed to parse image name: ${(e as Error).message}`);
  }
  const name = `${repository.replace(/\/+$/, '')}/${parsed.name}`.replace(/^\/+/, '');
  if (!NAME_ONLY.test(name) || name.length > MAX_NAME_LENGTH)
    throw new Error(`failed to update repository name: invalid reference format: "${name}"`);
  if (!parsed.tag) throw new Error('image must be tagged');
  return familiar({ name, tag: parsed.tag });
}
