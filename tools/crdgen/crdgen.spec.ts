import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { capiCrdDefinitions, structuralErrors } from '@capi/api';
import { INMEMORY_KIND_DEFINITIONS } from '@capi/inmemory';
import { generateCrdFiles } from './generate';

const crdDir = join(__dirname, '../../config/crd');
const inMemoryCrdDir = join(__dirname, '../../config/inmemory/crd');

describe('crdgen', () => {
  const generated = generateCrdFiles(capiCrdDefinitions);

  it('committed config/crd matches the generated output (run `npm run crdgen` after schema changes)', () => {
    const committed = readdirSync(crdDir)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    expect(committed).toEqual(generated.map((f) => f.name));
    for (const f of generated) expect(readFileSync(join(crdDir, f.name), 'utf8')).toBe(f.content);
  });

  it("committed config/inmemory/crd matches the in-memory provider's generated CRDs", () => {
    const inMemory = generateCrdFiles(INMEMORY_KIND_DEFINITIONS);
    expect(
      readdirSync(inMemoryCrdDir)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
    ).toEqual(inMemory.map((f) => f.name));
    for (const f of inMemory) expect(readFileSync(join(inMemoryCrdDir, f.name), 'utf8')).toBe(f.content);
  });

  it('writes one structural apiextensions.k8s.io/v1 CRD per file', () => {
    for (const f of generated) {
      const crd = parse(f.content);
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.kind).toBe('CustomResourceDefinition');
      expect(f.name).toBe(`${crd.spec.group}_${crd.spec.names.plural}.yaml`);
      for (const v of crd.spec.versions) expect(structuralErrors(v.schema.openAPIV3Schema)).toEqual([]);
    }
  });

  // Every kind is walked, the in-memory provider's included; none is exempt.
  it('gives every property of every CRD version a description (what `kubectl explain` prints)', () => {
    for (const f of [...generated, ...generateCrdFiles(INMEMORY_KIND_DEFINITIONS)]) {
      const crd = parse(f.content);
      for (const v of crd.spec.versions) {
        const where = `${crd.spec.names.kind} ${v.name}`;
        expect({ where, missing: undescribedProperties(v.schema.openAPIV3Schema) }).toEqual({ where, missing: [] });
      }
    }
  });

  it('undescribedProperties names each property without a description, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          description: 'd',
          properties: {
            a: { type: 'string' },
            l: { type: 'array', description: 'd', items: { type: 'object', properties: { x: { type: 'string' } } } },
            m: { type: 'object', description: 'd', additionalProperties: { properties: { y: { type: 'string' } } } },
          },
        },
        status: { type: 'object', properties: { ok: { type: 'boolean', description: 'd' } } },
      },
    };
    expect(undescribedProperties(schema)).toEqual(['.spec.a', '.spec.l[].x', '.spec.m{}.y', '.status']);
  });
});

/**
 * Paths of the properties that lack a description. The root object and top-level metadata are skipped: the root
 * carries the kind's description separately and the apiserver replaces metadata with ObjectMeta's own documented schema
 * (a CRD may only declare it as `type: object`).
 */
function undescribedProperties(schema: Record<string, any>, path = ''): string[] {
  const missing: string[] = [];
  for (const [name, prop] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
    const at = `${path}.${name}`;
    if (at === '.metadata') continue;
    if (typeof prop.description !== 'string' || prop.description.trim() === '') missing.push(at);
    missing.push(...undescribedProperties(prop, at));
  }
  if (schema.items) missing.push(...undescribedProperties(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object')
    missing.push(...undescribedProperties(schema.additionalProperties, `${path}{}`));
  return missing;
}
