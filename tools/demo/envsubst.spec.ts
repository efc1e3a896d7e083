// Cases from upstream cmd/clusterctl/client/yamlprocessor/simple_processor_test.go (GetVariables, GetVariableMap,
// Process) and drone/envsubst's eval_test.go (defaults and escapes), plus the errors this renderer adds.
import { MissingVariablesError, TemplateSyntaxError, renderTemplate, templateVariables } from './envsubst';

describe('templateVariables (TestSimpleProcessor_GetVariables / GetVariablesMap)', () => {
  it.each<[string, string, Record<string, string | undefined>]>([
    ['variable with different spacing around the name', 'yaml with ${A} ${ B} ${ C} ${ D }', {}],
    ['variables used in many places are grouped', 'yaml with ${A } ${A} ${A}', {}],
    ['variables in multiline texts are processed', 'yaml with ${A}\n${B}\n${C}', {}],
    [
      'variables with envsubst functions are properly parsed',
      'yaml with ${C:=default}\n${B}\n${A=foobar}\n${E=""}\n${D:=${A}}',
      { A: 'foobar', C: 'default', D: '${A}', E: '""' },
    ],
  ])('%s', (_name, data, defaults) => {
    const names = [...new Set(data.match(/\$\{ *([A-Z]+)/g)!.map((m) => m.replace(/[${ ]/g, '')))].sort();
    expect(Object.fromEntries(templateVariables(data))).toEqual(Object.fromEntries(names.map((n) => [n, defaults[n]])));
  });

  it('variables are sorted', () => {
    expect([...templateVariables('yaml with ${C}\n${B}\n${A}').keys()]).toEqual(['A', 'B', 'C']);
  });

  it('returns error for variables with regex metacharacters', () => {
    expect(() => templateVariables('yaml with ${BA$R}\n${FOO}')).toThrow(TemplateSyntaxError);
  });
});

describe('renderTemplate (TestSimpleProcessor_Process)', () => {
  it.each<[string, string, Record<string, string>, string]>([
    [
      'replaces legacy variables names (with spaces)',
      'foo ${ BAR }, ${BAR }, ${ BAR}',
      { BAR: 'bar' },
      'foo bar, bar, bar',
    ],
    [
      'does not escape slashes used for windows named pipes',
      '\\\\ foo ${ BAR }, ${BAR }, ${ BAR}',
      { BAR: 'bar' },
      '\\\\ foo bar, bar, bar',
    ],
    ['replaces variables when variable value contains regex metacharacters', 'foo ${BAR}', { BAR: 'ba$r' }, 'foo ba$r'],
    [
      "uses default values if variable doesn't exist in variables client",
      'foo ${BAR=default_bar} ${BAZ:=default_baz} ${CAR=default_car} ${CAZ:-default_caz} ${DAR=default_dar}',
      { BAR: 'ba$r', CAZ: '', DAR: '' },
      'foo ba$r default_baz default_car default_caz default_dar',
    ],
    [
      'uses default variables if main variable is doesnt exist',
      'foo ${BAR=default_bar} ${BAZ:=prefix${DEF}-suffix} ${CAZ=${DEF}}',
      { BAR: 'ba$r', DEF: 'football' },
      'foo ba$r prefixfootball-suffix football',
    ],
    // drone/envsubst eval_test.go: escaped
    ['$$ before ${ keeps the reference', '$${var01}', { var01: 'abcdEFGH28ij' }, '${var01}'],
    [
      '$$ anywhere is one $',
      'some text ${var01}$${var$${var01}$var01${var01}',
      { var01: 'abcdEFGH28ij' },
      'some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij',
    ],
    [
      'an escaped reference around a default',
      'something $${var=${default_var}}',
      { default_var: 'foo' },
      'something ${var=foo}',
    ],
    ['a variable set to an empty value and without a default is empty', 'a${X}b', { X: '' }, 'ab'],
    [
      'YAML-shaped defaults keep their quotes and brackets',
      'd: ${D:="cluster.local"} c: ${C:=["10.0.0.0/8"]}',
      {},
      'd: "cluster.local" c: ["10.0.0.0/8"]',
    ],
  ])('%s', (_name, template, values, want) => {
    expect(renderTemplate(template, values)).toBe(want);
  });

  it('returns error with missing template variables listed (for better ux), naming each', () => {
    let err: unknown;
    try {
      renderTemplate('foo ${ BAR} ${BAZ} ${CAR}', { CAR: 'car' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MissingVariablesError);
    expect((err as MissingVariablesError).missing).toEqual(['BAR', 'BAZ']);
    expect((err as Error).message).toMatch(/^value for variables \[BAR, BAZ\] is not set/);
  });

  it('a single missing variable is named in the message; undefined counts as unset', () => {
    expect(() => renderTemplate('v: ${KUBERNETES_VERSION}', { KUBERNETES_VERSION: undefined })).toThrow(
      'value for variables [KUBERNETES_VERSION] is not set: set it',
    );
  });

  it('returns error when variable name contains regex metacharacters', () => {
    expect(() => renderTemplate('foo ${BA$R} ${BA_R}', { BA$R: 'bar', BA_R: 'ba_r' })).toThrow(
      'bad substitution "${BA$R}": missing closing brace',
    );
  });

  it.each([
    ['${A', 'missing closing brace'],
    ['${A:=x', 'missing closing brace'],
    ['${}', 'unable to parse variable name'],
    ['${A^^}', 'unsupported substitution "${A^^}"'],
    ['${#A}', 'unsupported substitution "${#A}"'],
    ['${A:1:2}', 'unsupported substitution "${A:1:2}"'],
    ['${A/x/y}', 'unsupported substitution "${A/x/y}"'],
  ])('refuses %s: %s', (template, message) => {
    expect(() => renderTemplate(template, { A: 'a' })).toThrow(TemplateSyntaxError);
    expect(() => renderTemplate(template, { A: 'a' })).toThrow(message);
  });
});
