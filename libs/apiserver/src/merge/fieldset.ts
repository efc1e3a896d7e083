// A set of field paths, stored as a tree keyed by serialised path elements as in FieldsV1:
// `f:<name>` (field), `k:<json of key fields>` (list-map item), `v:<json>` (set value), `i:<n>` (index).
// Mirrors structured-merge-diff's fieldpath.Set: a node may be a member itself and have children.

export type PathElement = string;
export type FieldPath = PathElement[];

export class MergeError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(field ? `${field}: ${message}` : message);
    this.name = 'MergeError';
  }
}

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (v: unknown): PathElement => `v:${JSON.stringify(v)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;
/** Key fields serialised as a JSON object with names sorted, as structured-merge-diff does. */
export function keyElement(item: Record<string, unknown>, keys: string[]): PathElement {
  const sorted = [...keys].sort();
  const obj: Record<string, unknown> = {};
  for (const k of sorted) obj[k] = item[k];
  return `k:${JSON.stringify(obj)}`;
}

class Node {
  member = false;
  readonly children = new Map<PathElement, Node>();
}

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Order of structured-merge-diff's PathElement.Compare: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ka = KIND_ORDER[a[0]] ?? 9;
  const kb = KIND_ORDER[b[0]] ?? 9;
  if (ka !== kb) return ka - kb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export class FieldSet {
  private readonly root = new Node();

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPath): this {
    if (path.length === 0) return this; // the root is never a member
    let n = this.root;
    for (const pe of path) {
      let c = n.children.get(pe);
      if (!c) n.children.set(pe, (c = new Node()));
      n = c;
    }
    n.member = true;
    return this;
  }

  has(path: FieldPath): boolean {
    const n = this.node(path);
    return !!n && n.member;
  }

  /** True when the path or anything below it is a member. */
  hasPrefix(path: FieldPath): boolean {
    const n = this.node(path);
    return !!n && (n.member || hasAnyMember(n));
  }

  /** True when something strictly below the path is a member. */
  hasMembersBelow(path: FieldPath): boolean {
    const n = this.node(path);
    return !!n && hasAnyMember(n);
  }

  isEmpty(): boolean {
    return !hasAnyMember(this.root);
  }

  /** Every member path, in FieldsV1 order. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (n: Node, prefix: FieldPath) => {
      for (const pe of [...n.children.keys()].sort(comparePathElements)) {
        const c = n.children.get(pe)!;
        const p = [...prefix, pe];
        if (c.member) out.push(p);
        walk(c, p);
      }
    };
    walk(this.root, []);
    return out;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    const add = (into: Node, from: Node) => {
      if (from.member) into.member = true;
      for (const [pe, c] of from.children) {
        let t = into.children.get(pe);
        if (!t) into.children.set(pe, (t = new Node()));
        add(t, c);
      }
    };
    add(out.root, other.root);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const both = (a: Node, b: Node): Node => {
      const n = new Node();
      n.member = a.member && b.member;
      for (const [pe, c] of a.children) {
        const d = b.children.get(pe);
        if (d) n.children.set(pe, both(c, d));
      }
      return n;
    };
    return FieldSet.fromNode(both(this.root, other.root));
  }

  /** Removes exactly the members of `other` (children of a removed member stay). */
  difference(other: FieldSet): FieldSet {
    const minus = (a: Node, b: Node | undefined): Node => {
      const n = new Node();
      n.member = a.member && !b?.member;
      for (const [pe, c] of a.children) n.children.set(pe, minus(c, b?.children.get(pe)));
      return n;
    };
    return FieldSet.fromNode(minus(this.root, other.root));
  }

  /** Removes the members of `other` and everything below them. */
  recursiveDifference(other: FieldSet): FieldSet {
    const minus = (a: Node, b: Node | undefined): Node => {
      const n = new Node();
      n.member = a.member;
      for (const [pe, c] of a.children) {
        const d = b?.children.get(pe);
        if (d?.member) continue;
        n.children.set(pe, minus(c, d));
      }
      return n;
    };
    return FieldSet.fromNode(minus(this.root, other.root));
  }

  /** Only the members at or below `prefix`. */
  withPrefix(prefix: FieldPath): FieldSet {
    const n = this.node(prefix);
    const out = new FieldSet();
    if (!n || prefix.length === 0) return n ? this.clone() : out;
    let at = out.root;
    for (const pe of prefix.slice(0, -1)) {
      const c = new Node();
      at.children.set(pe, c);
      at = c;
    }
    at.children.set(prefix[prefix.length - 1], copyNode(n));
    return out;
  }

  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }

  clone(): FieldSet {
    return FieldSet.fromNode(copyNode(this.root));
  }

  private static fromNode(n: Node): FieldSet {
    const s = new FieldSet();
    s.root.member = false;
    for (const [pe, c] of n.children) s.root.children.set(pe, c);
    return s;
  }

  /** FieldsV1 JSON: `{}` for a leaf member, `".": {}` marks a member that also has children. */
  toFieldsV1(): Record<string, unknown> {
    const enc = (n: Node): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      if (n.member && n.children.size > 0) out['.'] = {};
      for (const pe of [...n.children.keys()].sort(comparePathElements)) {
        const c = n.children.get(pe)!;
        if (!c.member && !hasAnyMember(c)) continue;
        out[pe] = enc(c);
      }
      return out;
    };
    const out: Record<string, unknown> = {};
    for (const pe of [...this.root.children.keys()].sort(comparePathElements)) {
      const c = this.root.children.get(pe)!;
      if (c.member || hasAnyMember(c)) out[pe] = enc(c);
    }
    return out;
  }

  static fromFieldsV1(json: unknown): FieldSet {
    const s = new FieldSet();
    // `at` is only built for error messages.
    const dec = (v: unknown, into: Node, at: () => FieldPath) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        throw new MergeError(formatPath(at()), 'FieldsV1 entries must be JSON objects');
      }
      for (const k in v as Record<string, unknown>) {
        if (k === '.') {
          if (into === s.root) throw new MergeError('', 'FieldsV1 root cannot be a member');
          into.member = true;
          continue;
        }
        const kind = k.charCodeAt(0);
        // f, k, v, i followed by ':'
        if (k.charCodeAt(1) !== 58 || (kind !== 102 && kind !== 107 && kind !== 118 && kind !== 105)) {
          throw new MergeError(formatPath(at()), `unknown FieldsV1 element "${k}"`);
        }
        const child = (v as Record<string, unknown>)[k];
        let n = into.children.get(k);
        if (!n) into.children.set(k, (n = new Node()));
        if (child !== null && typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length === 0) {
          n.member = true;
        } else {
          dec(child, n, () => [...at(), k]);
        }
      }
    };
    dec(json ?? {}, s.root, () => []);
    return s;
  }

  private node(path: FieldPath): Node | undefined {
    let n: Node | undefined = this.root;
    for (const pe of path) {
      n = n.children.get(pe);
      if (!n) return undefined;
    }
    return n;
  }
}

function copyNode(n: Node): Node {
  const out = new Node();
  out.member = n.member;
  for (const [pe, c] of n.children) out.children.set(pe, copyNode(c));
  return out;
}

function hasAnyMember(n: Node): boolean {
  for (const c of n.children.values()) if (c.member || hasAnyMember(c)) return true;
  return false;
}

/** structured-merge-diff's value.ToString: strings quoted, numbers/bools bare. */
function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${valueToString(x)}`)
      .join(',')}}`;
  }
  return String(v);
}

/** Path as kube prints it in conflicts: `.spec.replicas`, `.status.conditions[type="Ready"].status`, `[="x"]`, `[0]`. */
export function formatPath(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const obj = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.keys(obj)
            .sort()
            .map((k) => `${k}=${valueToString(obj[k])}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${valueToString(JSON.parse(body))}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
