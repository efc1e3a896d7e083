import { asPartialObjectMetadataList, requestedPartialMetadata } from './partial-metadata';

const CLIENT_GO =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

describe('requestedPartialMetadata', () => {
  it.each([
    ['no Accept', undefined, true, undefined],
    ['plain JSON', 'application/json', true, undefined],
    ['a Table (kubectl get)', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json', true, undefined],
    [
      "client-go's metadata client: protobuf first, for a built-in kind",
      CLIENT_GO,
      true,
      { as: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', format: 'protobuf' },
    ],
    [
      "client-go's metadata client: protobuf first, for a custom resource too",
      CLIENT_GO,
      false,
      { as: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', format: 'protobuf' },
    ],
    [
      'the list form, v1beta1 (JSON only)',
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1',
      true,
      { as: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1beta1', format: 'json' },
    ],
    [
      'plain protobuf first, for a kind that has it: whole objects',
      `application/vnd.kubernetes.protobuf,${CLIENT_GO}`,
      true,
      undefined,
    ],
    [
      'plain protobuf first, for a custom resource: passed over',
      `application/vnd.kubernetes.protobuf,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
      false,
      { as: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', format: 'json' },
    ],
    [
      'plain JSON preferred by q',
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1;q=0.5,application/json',
      true,
      undefined,
    ],
    ['another group', 'application/json;as=PartialObjectMetadata;g=example.com;v=v1', true, undefined],
    ['an unknown version', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2', true, undefined],
  ])('%s', (_, accept, kindHasProtobuf, expected) => {
    expect(requestedPartialMetadata(accept, kindHasProtobuf)).toEqual(expected);
  });
});

describe('asPartialObjectMetadataList', () => {
  it("keeps the list's resourceVersion and continue and only the items' metadata", () => {
    const list = {
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } }],
    };
    const target = { as: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', format: 'json' } as const;
    expect(asPartialObjectMetadataList(target, 'SecretList', list)).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 's' } }],
    });
  });
});
