import { asPartialObjectMetadataList, requestedPartialMetadata } from './partial-metadata';

describe('requestedPartialMetadata', () => {
  it.each([
    ['no Accept', undefined, undefined],
    ['plain JSON', 'application/json', undefined],
    ['a Table (kubectl get)', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json', undefined],
    [
      "client-go's metadata client: protobuf passed over, the JSON range taken",
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
      { as: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' },
    ],
    [
      'the list form, v1beta1',
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1',
      { as: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1beta1' },
    ],
    [
      'plain JSON preferred by q',
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1;q=0.5,application/json',
      undefined,
    ],
    ['another group', 'application/json;as=PartialObjectMetadata;g=example.com;v=v1', undefined],
    ['an unknown version', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2', undefined],
  ])('%s', (_, accept, expected) => {
    expect(requestedPartialMetadata(accept)).toEqual(expected);
  });
});

describe('asPartialObjectMetadataList', () => {
  it("keeps the list's resourceVersion and continue and only the items' metadata", () => {
    const list = {
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } }],
    };
    expect(
      asPartialObjectMetadataList(
        { as: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' },
        'SecretList',
        list,
      ),
    ).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 's' } }],
    });
  });
});
