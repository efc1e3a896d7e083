// A kind = its GVK, CRD naming and the TypeBox schema of the whole object. Types and CRDs derive from it.
import {
  Type,
  type TObject,
  type TSchema,
  type Static,
  type TOptional,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ObjectMeta } from '@capi/apimachinery';
import { ObjectMetaSchema } from './meta';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface KindDefinition<S extends TSchema = TSchema> {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural resource name, e.g. "machines". */
  plural: string;
  singular: string;
  listKind: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  categories?: string[];
  printerColumns?: PrinterColumn[];
  /** Whether `/status` is a subresource. */
  statusSubresource: boolean;
  /** `.spec.replicas` scale subresource paths, when the kind supports `kubectl scale`. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** Schema of the whole object (apiVersion, kind, metadata, spec, status). */
  schema: S;
  /** Labels on the CRD itself (e.g. the contract-version label). */
  crdLabels?: Record<string, string>;
  /**
   * Older versions the CRD also serves (not stored; listed before `version`, as controller-gen orders them). The
   * embedded API server converts between versions by relabelling apiVersion only (conversion strategy None).
   */
  servedVersions?: ServedVersion[];
}

export interface ServedVersion {
  name: string;
  /** Schema of the whole object at this version. */
  schema: TSchema;
  printerColumns?: PrinterColumn[];
  /** Set for a deprecated version: the warning clients get (apiextensions deprecationWarning). */
  deprecationWarning?: string;
}

type ObjectSchema<Spec extends TSchema, Status extends TSchema> = TObject<{
  apiVersion: TString;
  kind: TString;
  metadata: TUnsafe<ObjectMeta>;
  spec: Spec;
  status: TOptional<Status>;
}>;

export interface KindInput<Spec extends TSchema, Status extends TSchema> extends Omit<
  KindDefinition,
  'schema' | 'singular' | 'listKind' | 'statusSubresource' | 'plural'
> {
  plural?: string;
  spec: Spec;
  status: Status;
  description: string;
}

/** Declare a kind; spec is required on the TS side (`{}` allowed), status optional, as Go's omitempty structs. */
export function defineKind<Spec extends TSchema, Status extends TSchema>(
  input: KindInput<Spec, Status>,
): KindDefinition<ObjectSchema<Spec, Status>> {
  const { spec, status, description, ...rest } = input;
  const singular = input.kind.toLowerCase();
  const schema = Type.Object(
    {
      apiVersion: Type.String({
        description: 'APIVersion defines the versioned schema of this representation of an object.',
      }),
      kind: Type.String({
        description: 'Kind is a string value representing the REST resource this object represents.',
      }),
      metadata: ObjectMetaSchema,
      spec,
      status: Type.Optional(status),
    },
    { description },
  ) as unknown as ObjectSchema<Spec, Status>;
  return {
    ...rest,
    plural: input.plural ?? `${singular}s`,
    singular,
    listKind: `${input.kind}List`,
    statusSubresource: true,
    schema,
  };
}

export type KindObject<D extends KindDefinition> = Static<D['schema']>;

export const apiVersionOf = (d: Pick<KindDefinition, 'group' | 'version'>): string => `${d.group}/${d.version}`;

/**
 * Validation errors of `obj` against the kind's schema ("" paths are the root), empty when valid.
 * Unknown fields are allowed (the apiserver prunes them); this is a check for typed fields only.
 */
export function validateKindObject(def: KindDefinition, obj: unknown): string[] {
  return [...Value.Errors(def.schema, obj)].map((e) => `${e.path || '/'}: ${e.message}`);
}

// String formats used by the schemas (OpenAPI / Kubernetes semantics), registered once per process.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => RFC3339.test(v) && !Number.isNaN(Date.parse(v)));
if (!FormatRegistry.Has('byte')) FormatRegistry.Set('byte', (v) => BASE64.test(v));
