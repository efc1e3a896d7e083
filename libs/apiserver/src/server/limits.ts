// kube-apiserver's size and shape limits on what a request may carry and an object may weigh, with kube's Status.
import type { ResourceInfo } from './registry';
import { StatusError, type Cause } from './status';

/** kube-apiserver's default MaxRequestBodyBytes (genericapiserver Config): 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** etcd's default --max-request-bytes (1.5 MiB): the largest object kube can store. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/**
 * Deepest JSON/YAML nesting a request may carry. kube (Go's JSON scanner) allows 10000 levels; our schema, merge and
 * managedFields walks are recursive and overflow the default V8 stack at about 1700 levels (RangeError), the YAML
 * parser at about 900, so the limit sits well below both (real objects nest a few tens of levels).
 */
export const MAX_NESTING_DEPTH = 512;

/** core.MaxSecretSize: the most data a ConfigMap or a Secret may hold (1 MiB). */
export const MAX_DATA_BYTES = 1024 * 1024;

const byteSizes = (m: unknown, decode: boolean): Map<string, number> => {
  const out = new Map<string, number>();
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return out;
  for (const [k, v] of Object.entries(m))
    if (typeof v === 'string') out.set(k, decode ? Buffer.from(v, 'base64').length : Buffer.byteLength(v));
  return out;
};
const total = (...maps: Map<string, number>[]) =>
  maps.reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);

/**
 * kube's ValidateConfigMap / ValidateSecret size rule: more than 1 MiB of data is invalid (422), reported on the
 * whole object ("[]") for a ConfigMap and on `data` for a Secret (whose stringData is merged into data first).
 */
export function dataSizeCauses(info: Pick<ResourceInfo, 'group' | 'kind'>, obj: Record<string, any>): Cause[] {
  if (info.group !== '') return [];
  const tooLong = (field: string): Cause => ({
    type: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${MAX_DATA_BYTES} bytes`,
  });
  if (info.kind === 'ConfigMap') {
    return total(byteSizes(obj.data, false), byteSizes(obj.binaryData, true)) > MAX_DATA_BYTES ? [tooLong('[]')] : [];
  }
  if (info.kind === 'Secret') {
    const data = byteSizes(obj.data, true);
    for (const [k, n] of byteSizes(obj.stringData, false)) data.set(k, n);
    return total(data) > MAX_DATA_BYTES ? [tooLong('data')] : [];
  }
  return [];
}

/** The Status kube's limitedReadBody answers with (errors.NewRequestEntityTooLargeError). */
export function requestEntityTooLarge(limit = MAX_REQUEST_BODY_BYTES): StatusError {
  return new StatusError(413, `Request entity too large: limit is ${limit}`, 'RequestEntityTooLarge');
}

/**
 * What kube answers when etcd refuses an object over its request limit: etcd's error passed through as a 500 with
 * no reason (staging/src/k8s.io/apiserver/pkg/storage/etcd3 returns the gRPC error as is).
 */
export function objectTooLarge(): StatusError {
  return new StatusError(500, 'etcdserver: request is too large', '');
}

/** Nesting depth of a decoded JSON value (a scalar is 0, `{}` or `[]` is 1), without recursion. */
export function nestingDepth(value: unknown, stopAbove = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > stopAbove) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth]);
  }
  return max;
}

/** 400 for a value nested deeper than MAX_NESTING_DEPTH, worded like Go's JSON decoder ("exceeded max depth"). */
export function checkNesting(value: unknown, what = 'request body'): void {
  if (nestingDepth(value, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw new StatusError(400, `error decoding ${what}: exceeded max depth of ${MAX_NESTING_DEPTH}`, 'BadRequest');
  }
}

/** JSON.parse (iterative in V8, any depth) followed by the nesting limit. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new StatusError(400, `error decoding request body: ${(e as Error).message}`, 'BadRequest');
  }
  checkNesting(value);
  return value;
}
