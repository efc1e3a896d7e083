// The part of github.com/coredns/corefile-migration (migration/migrate.go Migrate, migration/corefile/corefile.go,
// migration/versions.go, migration/plugins.go) that upstream KCP exercises for the CoreDNS versions kubeadm ships
// with the Kubernetes versions Cluster API supports: forward migrations starting at CoreDNS 1.10.0 or later. In that
// range the library's only plugin action is the kubernetes plugin's ignored `endpoint` option keeping its first
// argument (useFirstArgumentOnly); the Corefile is re-written in the library's layout. Starting versions before 1.10.0
// (plugin renames, server-block splits, ...) are not ported: migrating from them is an error.

/** Every release the library knows (validateCoreDNSImageTag accepts these as the starting version). */
export const COREDNS_VERSIONS = [
  ...['1.1.3', '1.1.4', '1.2.0', '1.2.1', '1.2.2', '1.2.3', '1.2.4', '1.2.5', '1.2.6', '1.3.0', '1.3.1', '1.4.0'],
  ...['1.5.0', '1.5.1', '1.5.2', '1.6.0', '1.6.1', '1.6.2', '1.6.3', '1.6.4', '1.6.5', '1.6.6', '1.6.7', '1.6.9'],
  ...['1.7.0', '1.7.1', '1.8.0', '1.8.3', '1.8.4', '1.8.5', '1.8.6', '1.8.7', '1.9.0', '1.9.1', '1.9.2', '1.9.3'],
  ...['1.9.4', '1.10.0', '1.10.1', '1.11.0', '1.11.1', '1.11.3', '1.11.4', '1.12.0', '1.12.1', '1.12.2', '1.12.3'],
  ...['1.12.4', '1.13.0', '1.13.1', '1.13.2', '1.14.0', '1.14.1', '1.14.2'],
];
/**
 * A version in single quotes, as the library's messages write it (a helper: the package build's dependency check
 * reads a quoted word after "from" as an import).
 */
const quoted = (v: string) => `'${v}'`;
/** The first starting version whose migrations are ported. */
export const FIRST_PORTED_COREDNS_VERSION = '1.10.0';

export interface CorefileOption {
  name: string;
  args: string[];
}
export interface CorefilePlugin extends CorefileOption {
  options: CorefileOption[];
}
export interface CorefileServer {
  domPorts: string[];
  plugins: CorefilePlugin[];
}

interface Token {
  text: string;
  line: number;
}

/** caddyfile's lexer: words separated by white space, "quoted strings" (\" escapes), # comments. */
function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '#') while (i < s.length && s[i] !== '\n') i++;
    else if (c === '"') {
      const start = line;
      let text = '';
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && s[i + 1] === '"') i++;
        if (s[i] === '\n') line++;
        text += s[i++];
      }
      i++;
      tokens.push({ text, line: start });
    } else {
      let text = '';
      while (i < s.length && !/\s/.test(s[i])) text += s[i++];
      tokens.push({ text, line });
    }
  }
  return tokens;
}

/** corefile.New: server blocks (depth 0), plugins (depth 1), plugin options (depth 2). */
export function parseCorefile(s: string): CorefileServer[] {
  const tokens = tokenize(s);
  const servers: CorefileServer[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length;) {
    const val = tokens[i].text;
    if (val === '{' || val === '}') {
      depth += val === '{' ? 1 : -1;
      i++;
      continue;
    }
    // Dispenser.RemainingArgs: the tokens on the same line, up to (not including) an opening brace.
    const args: string[] = [];
    let j = i + 1;
    while (j < tokens.length && tokens[j].line === tokens[i].line && tokens[j].text !== '{')
      args.push(tokens[j++].text);
    i = j;
    const server = servers[servers.length - 1];
    const plugin = server?.plugins[server.plugins.length - 1];
    if (depth === 0) servers.push({ domPorts: [val, ...args], plugins: [] });
    else if (depth === 1 && server) server.plugins.push({ name: val, args, options: [] });
    else if (depth === 2 && plugin) plugin.options.push({ name: val, args });
  }
  return servers;
}

const INDENT = '    ';
const escapeArgs = (args: string[]) =>
  args.map((a) => (a.trim().split(/\s+/).length > 1 ? `"${a.replace(/"/g, '\\"')}"` : a));
const optionString = (o: CorefileOption) => [o.name, ...escapeArgs(o.args)].join(' ');

function pluginString(p: CorefilePlugin): string {
  const head = optionString(p);
  if (!p.options.length) return head;
  return `${head} {\n${p.options.map((o) => INDENT + INDENT + optionString(o)).join('\n')}\n${INDENT}}`;
}

/** Corefile.ToString. */
export function corefileString(servers: CorefileServer[]): string {
  return servers
    .map((s) => {
      const head = escapeArgs(s.domPorts).join(' ');
      if (!s.plugins.length) return head;
      return `${head} {\n${s.plugins.map((p) => INDENT + pluginString(p)).join('\n')}\n}\n`;
    })
    .join('\n');
}

/**
 * migration.Migrate(from, to, corefile, deprecations=false) for the ported range: the Corefile for CoreDNS `to`
 * (major.minor.patch versions). The same version returns the Corefile unchanged.
 */
export function migrateCorefile(from: string, to: string, corefile: string): string {
  if (from === to) return corefile;
  const fromIndex = COREDNS_VERSIONS.indexOf(from);
  if (fromIndex < 0) throw new Error(`start version '${from}' not supported`);
  const toIndex = COREDNS_VERSIONS.indexOf(to);
  if (toIndex <= fromIndex) throw new Error(`cannot migrate up to '${to}' from ${quoted(from)}`);
  if (fromIndex < COREDNS_VERSIONS.indexOf(FIRST_PORTED_COREDNS_VERSION))
    throw new Error(
      `migrating the CoreDNS Corefile from ${quoted(from)} (before ${FIRST_PORTED_COREDNS_VERSION}) is not supported by this controller`,
    );
  const servers = parseCorefile(corefile);
  // Every step in the ported range carries the same kubernetes plugin (v8): its ignored `endpoint` option keeps only
  // its first argument; applying it once is applying it at every step.
  for (const s of servers)
    for (const p of s.plugins)
      if (p.name === 'kubernetes')
        for (const o of p.options) if (o.name === 'endpoint' && o.args.length > 1) o.args = o.args.slice(0, 1);
  return corefileString(servers);
}
