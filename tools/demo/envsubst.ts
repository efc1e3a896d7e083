// clusterctl's substitution of template variables, so the sample manifests in examples/clusters render here exactly as
// `clusterctl generate cluster` renders them: upstream cmd/clusterctl/client/yamlprocessor/simple_processor.go on
// github.com/drone/envsubst/v2 (parse/parse.go, parse/scan.go, template.go).
//
// Supported, as there: `${VAR}`; defaults `${VAR=default}`, `${VAR:=default}`, `${VAR:-default}` (and `:?`, `:+`,
// which drone/envsubst also evaluates as a default), a default may hold other variables (`${A:=x-${B}}`); `$$` is a
// literal `$` (so `$${VAR}` stays `${VAR}`); `${ VAR }` with spaces (clusterctl's legacy form). A default is used
// when the variable is unset or empty. drone/envsubst's string functions (`${VAR^^}`, `${VAR:1:2}`, `${#VAR}`,
// `${VAR/a/b}`, `${VAR#a}`, `${VAR%a}`, ...) are refused with an error naming them: no template here uses them.

type Node = { text: string } | { param: string; op: string; args: Node[] };

/** A template that cannot be parsed (drone/envsubst's "bad substitution" family). */
export class TemplateSyntaxError extends Error {}

/** Variables without a value or a default (clusterctl's errMissingVariables), names sorted. */
export class MissingVariablesError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `value for variables [${missing.join(', ')}] is not set: set ${missing.length === 1 ? 'it' : 'them'} ` +
        `(environment variables, or the clusterctl config file with clusterctl)`,
    );
  }
}

// simple_processor.go legacyVariableRegEx: `${ VAR}`, `${ VAR }`, `${VAR }` become `${VAR}`.
const LEGACY = /(\$\{(\s+([A-Za-z0-9_$]+)\s+)\})|(\$\{(\s+([A-Za-z0-9_$]+))\})|(\$\{(([A-Za-z0-9_$]+)\s+)\})/g;
const convertLegacyVars = (s: string) => s.replace(LEGACY, (m) => m.replace(/\s/g, ''));

const isIdent = (c: string | undefined) => c !== undefined && /^[\p{L}\p{N}_]$/u.test(c);

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  /** Top level: text with `$$` escapes and `${...}` substitutions (parse.go parseAny). */
  parse(): Node[] {
    const nodes: Node[] = [];
    let text = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '$' && this.s[this.i + 1] === '{') {
        if (text) nodes.push({ text });
        text = '';
        this.i += 2;
        nodes.push(this.func());
      } else if (c === '$' && this.s[this.i + 1] === '$') {
        text += '$';
        this.i += 2;
      } else {
        text += c;
        this.i++;
      }
    }
    if (text) nodes.push({ text });
    return nodes;
  }

  /** After `${`: a name, then `}` or a default (parse.go parseFunc, parseDefaultFunc). */
  private func(): Node {
    const start = this.i - 2;
    if (this.s[this.i] === '#') throw this.unsupported(start);
    let param = '';
    while (isIdent(this.s[this.i])) param += this.s[this.i++];
    if (!param) throw this.error(start, 'unable to parse variable name');
    const c = this.s[this.i];
    if (c === '}') {
      this.i++;
      return { param, op: '', args: [] };
    }
    let op: string;
    if (c === '=') op = '=';
    else if (c === ':' && '=-?+'.includes(this.s[this.i + 1] ?? 'x')) op = `:${this.s[this.i + 1]}`;
    else if (c !== undefined && ':,^/#%'.includes(c)) throw this.unsupported(start);
    else throw this.error(start, 'missing closing brace');
    this.i += op.length;
    return { param, op, args: this.defaultArgs(start) };
  }

  /** A default's text and nested substitutions up to the closing `}`; `$$`, `\\` and `\/` are escapes there. */
  private defaultArgs(start: number): Node[] {
    const args: Node[] = [];
    let text = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) throw this.error(start, 'missing closing brace');
      if (c === '}') {
        this.i++;
        if (text) args.push({ text });
        return args;
      }
      const next = this.s[this.i + 1];
      if (c === '$' && next === '{') {
        if (text) args.push({ text });
        text = '';
        this.i += 2;
        args.push(this.func());
      } else if ((c === '$' && next === '$') || (c === '\\' && (next === '\\' || next === '/'))) {
        text += next;
        this.i += 2;
      } else {
        text += c;
        this.i++;
      }
    }
  }

  private snippet(start: number): string {
    const end = this.s.indexOf('}', start);
    return end < 0 ? this.s.slice(start, start + 20) : this.s.slice(start, end + 1);
  }

  private error(start: number, why: string): TemplateSyntaxError {
    return new TemplateSyntaxError(`bad substitution ${JSON.stringify(this.snippet(start))}: ${why}`);
  }

  private unsupported(start: number): TemplateSyntaxError {
    return new TemplateSyntaxError(
      `unsupported substitution ${JSON.stringify(this.snippet(start))}: only \${VAR} and defaults (\${VAR:=default}) are supported`,
    );
  }
}

const parse = (template: string) => new Parser(convertLegacyVars(template)).parse();

/**
 * The template's variables (name → its default, undefined when it has none), sorted by name: simple_processor.go
 * GetVariableMap (a variable is listed with what its first use says; a nested `${B}` in a default is written as is).
 */
export function templateVariables(template: string): Map<string, string | undefined> {
  const found = new Map<string, string>();
  for (const n of parse(template)) {
    if ('text' in n || found.has(n.param)) continue;
    found.set(n.param, n.args.map((a) => ('text' in a ? a.text : `\${${a.param}}`)).join(''));
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v === '' ? undefined : v]));
}

/**
 * Renders `template` with `values` (a key with a string, even empty, is set; a missing or undefined one is not), as
 * simple_processor.go Process: every variable without a default must be set, else a MissingVariablesError naming them
 * all; a default is used when the value is unset or empty.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string | undefined>>): string {
  const nodes = parse(template);
  const isSet = (k: string) => Object.prototype.hasOwnProperty.call(values, k) && values[k] !== undefined;
  const missing = [...templateVariables(template)].filter(([k, d]) => d === undefined && !isSet(k)).map(([k]) => k);
  if (missing.length > 0) throw new MissingVariablesError(missing);
  const evaluate = (n: Node): string => {
    if ('text' in n) return n.text;
    const v = isSet(n.param) ? values[n.param]! : '';
    // drone/envsubst toDefault: the arguments joined, when the value is empty.
    return v === '' && n.op ? n.args.map(evaluate).join('') : v;
  };
  return nodes.map(evaluate).join('');
}
