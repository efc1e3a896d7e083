// Object names from a naming template (upstream internal/topology/names/names.go, the generators behind
// spec.machineNaming.template): a Go text/template over `.cluster.name`, `.random` and the owner's fields, executed with
// missingkey=error. Only what such templates use is supported: text and field actions `{{ .a.b }}` (with `{{-`/`-}}`
// trimming); anything else is a parse error, as an unknown function would be upstream.

/** k8s.io/apiserver/pkg/storage/names: names are at most 63 characters, the random suffix is 5. */
export const MAX_NAME_LENGTH = 63;
export const RANDOM_LENGTH = 5;
const MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

/** k8s.io/apimachinery/pkg/util/rand: the alphabet of random name suffixes (no vowels, no confusable characters). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** utilrand.String(n). `random` returns a number in [0, 1) (Math.random by default; tests pass their own). */
export function randomString(n: number, random: () => number = Math.random): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ALPHANUMS[Math.floor(random() * ALPHANUMS.length)];
  return out;
}

export class NameTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NameTemplateError';
  }
}

type TemplateData = Record<string, unknown>;

const ACTION = /\{\{(-\s)?\s*(.*?)\s*(\s-)?\}\}/gs;
const FIELD_CHAIN = /^(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

function lookup(data: TemplateData, chain: string, template: string): string {
  let cur: unknown = data;
  for (const key of chain.slice(1).split('.')) {
    if (cur === null || typeof cur !== 'object' || !(key in (cur as TemplateData)))
      throw new NameTemplateError(
        `rendering template: template: template name generator:1:${template.indexOf(chain) + 1}: executing "template name generator" at <${chain}>: map has no entry for key "${key}"`,
      );
    cur = (cur as TemplateData)[key];
  }
  return String(cur);
}

/** Renders `template` with `data` (upstream templateGenerator.GenerateName before the length cut). */
export function renderNameTemplate(template: string, data: TemplateData): string {
  const opens = template.split('{{').length - 1;
  const closes = template.split('}}').length - 1;
  if (opens !== closes)
    throw new NameTemplateError(`parsing template "${template}": template: template name generator:1: unclosed action`);
  let out = '';
  let last = 0;
  for (const m of template.matchAll(ACTION)) {
    let text = template.slice(last, m.index);
    if (m[1]) text = text.replace(/\s+$/, '');
    out += text;
    const expr = m[2];
    if (!FIELD_CHAIN.test(expr))
      throw new NameTemplateError(
        `parsing template "${template}": template: template name generator:1: unsupported action {{ ${expr} }} (only field references like {{ .random }})`,
      );
    out += lookup(data, expr, template);
    last = m.index + m[0].length;
    if (m[3]) {
      const rest = template.slice(last);
      last += rest.length - rest.replace(/^\s+/, '').length;
    }
  }
  return out + template.slice(last);
}

/**
 * A name from `template` (upstream newTemplateGenerator + GenerateName): data is `extra` plus `.cluster.name` and
 * `.random` (5 random characters); a result longer than 63 characters is cut to 58 plus 5 new random characters.
 */
export function generateNameFromTemplate(
  template: string,
  clusterName: string,
  extra: TemplateData,
  random: () => number = Math.random,
): string {
  const data: TemplateData = { ...extra, cluster: { name: clusterName }, random: randomString(RANDOM_LENGTH, random) };
  const name = renderNameTemplate(template, data);
  return name.length > MAX_NAME_LENGTH
    ? name.slice(0, MAX_GENERATED_NAME_LENGTH) + randomString(RANDOM_LENGTH, random)
    : name;
}
