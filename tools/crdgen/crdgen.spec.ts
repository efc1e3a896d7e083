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
});
