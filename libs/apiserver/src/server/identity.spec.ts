import { checkKind, summarizeBody } from './identity';
import { Registry, resourcesFromCrd } from './registry';
import { StatusError } from './status';

const registry = new Registry();
const configMaps = registry.lookup('', 'v1', 'configmaps')!;
const [widgets] = resourcesFromCrd({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [{ name: 'v1', served: true, storage: true }],
  },
});
const failure = (info: typeof widgets, obj: Record<string, unknown>) => {
  try {
    checkKind(registry, info, obj);
  } catch (e) {
    return (e as StatusError).toStatus();
  }
  return undefined;
};

describe('checkKind (kube decoders)', () => {
  it("built-ins: a missing apiVersion or kind is the URL's; another kind cannot be handled", () => {
    const obj: Record<string, unknown> = { metadata: {} };
    expect(failure(configMaps, obj)).toBeUndefined();
    expect(obj).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(failure(configMaps, { apiVersion: 'v1', kind: 'Secret' })).toMatchObject({
      code: 400,
      message:
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    });
    expect(failure(configMaps, { apiVersion: 'batch/v1', kind: 'Job' })?.message).toBe(
      'Job in version "v1" cannot be handled as a ConfigMap: no kind "Job" is registered for version "batch/v1" in scheme "pkg/runtime/scheme.go:111"',
    );
    // A kind the server serves (apps/v1 Deployment) has no conversion to another.
    expect(failure(configMaps, { apiVersion: 'apps/v1', kind: 'Deployment' })?.message).toBe(
      'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion',
    );
  });

  it('custom resources: kind and apiVersion required, another kind a 422 of the CRD validator', () => {
    expect(failure(widgets, { apiVersion: 'example.com/v1', kind: 'Widget' })).toBeUndefined();
    expect(failure(widgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } })).toMatchObject({
      code: 422,
      message: 'Gadget.example.com "g" is invalid: kind: Invalid value: "Gadget": must be Widget',
    });
    expect(failure(widgets, { kind: 'Widget' })?.message).toBe(
      'the API version in the data () does not match the expected API version (example.com/v1)',
    );
    expect(failure(widgets, { apiVersion: 'example.com/v1' })?.message).toMatch(
      /^the object provided is unrecognized \(must be of type Widget\): Object 'Kind' is missing in '\{"apiVersion":"example.com\/v1"\}' \(\{"apiVersion":"example.com\/v1" \.\.\.\)$/,
    );
  });

  it('a TypeMeta field that is not a string fails decoding (400), never a crash', () => {
    expect(failure(configMaps, { apiVersion: 5, kind: 'ConfigMap' })).toMatchObject({
      code: 400,
      message: expect.stringContaining('json: cannot unmarshal number into Go struct field .apiVersion of type string'),
    });
    expect(failure(widgets, { apiVersion: 'example.com/v1', kind: ['Widget'] })?.code).toBe(400);
  });
});

describe('summarizeBody', () => {
  it("a JSON body's first 30 characters, another's first 30 bytes in hex", () => {
    expect(summarizeBody('{"a":1}')).toBe('{"a":1}');
    expect(summarizeBody(`{"a":"${'x'.repeat(40)}"}`)).toBe(`{"a":"${'x'.repeat(24)} ...`);
    expect(summarizeBody(Buffer.from([0, 1, 255]))).toBe('0001ff');
    expect(summarizeBody('')).toBe('<empty>');
  });
});
