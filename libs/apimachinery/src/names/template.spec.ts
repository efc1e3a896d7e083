// Upstream internal/topology/names/names_test.go Test_templateGenerator_GenerateName (every case) and the
// KCPMachineNameGenerator data.
import { generateNameFromTemplate, NameTemplateError, renderNameTemplate } from './template';

const zeros = (n: number) => '0'.repeat(n);

describe('generateNameFromTemplate', () => {
  it('simple template', () => {
    expect(generateNameFromTemplate('some-simple-{{ .test }}', 'c', { test: 'value' })).toBe('some-simple-value');
  });

  it('name which gets trimmed and added a random suffix with 5 characters', () => {
    const name = generateNameFromTemplate(zeros(64), 'c', {});
    expect(name).toHaveLength(63);
    expect(name.startsWith(zeros(58))).toBe(true);
    expect(name.endsWith(zeros(5))).toBe(false);
  });

  it('name which does not get trimmed', () => {
    expect(generateNameFromTemplate(zeros(63), 'c', {})).toBe(zeros(63));
  });

  it('error on parsing template', () => {
    expect(() => generateNameFromTemplate('some-hardcoded-name-{{ .doesnotexistindata', 'c', {})).toThrow(
      NameTemplateError,
    );
  });

  it('error due to missing key in data', () => {
    expect(() => generateNameFromTemplate('some-hardcoded-name-{{ .doesnotexistindata }}', 'c', {})).toThrow(
      /map has no entry for key "doesnotexistindata"/,
    );
  });

  it('offers .cluster.name, .random and the owner data', () => {
    const name = generateNameFromTemplate(
      '{{ .cluster.name }}-{{ .kubeadmControlPlane.name }}-{{ .random }}',
      'c1',
      { kubeadmControlPlane: { name: 'cp' } },
      () => 0,
    );
    expect(name).toBe('c1-cp-bbbbb');
  });

  it('trims around actions as text/template does and rejects functions', () => {
    expect(renderNameTemplate('a- {{- .x -}} -b', { x: 'X' })).toBe('a-X-b');
    expect(() => renderNameTemplate('{{ printf "%s" .x }}', { x: 'X' })).toThrow(/unsupported action/);
  });
});
