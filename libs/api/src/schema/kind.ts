// A kind = its GVK, CRD naming and the TypeBox schema of the whole object. Types and CRDs derive from it.
import { Type, type TObject, type TSchema, type Static, type TOptional, type TString, type TUnsafe } from '@sinclair/typebox';
import type { ObjectMeta } from '@capi/controller-runtime';
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
}

type ObjectSchema<Spec extends TSchema, Status extends TSchema> = TObject<{
  apiVersion: TString;
  kind: TString;
  metadata: TUnsafe<ObjectMeta>;
  spec: Spec;
  status: TOptional<Status>;
}>;

export interface KindInput<Spec extends TSchema, Status extends TSchema>
  extends Omit<KindDefinition, 'schema' | 'singular' | 'listKind' | 'statusSubresource' | 'plural'> {
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
      apiVersion: Type.String({ description: 'APIVersion defines the versioned schema of this representation of an object.' }),
      kind: Type.String({ description: 'Kind is a string value representing the REST resource this object represents.' }),
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
