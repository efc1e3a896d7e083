// CoreDNS versions a Corefile can be migrated between (github.com/coredns/corefile-migration migration/versions.go,
// each version's nextVersion), and ValidUpMigration as KCP's webhook uses it to refuse a CoreDNS upgrade the
// migration library (and so the KCP controller) cannot carry out.

/** Every version the migration library knows, oldest first; each one's nextVersion is the one after it. */
const COREDNS_VERSIONS = [
  '1.1.3', '1.1.4', '1.2.0', '1.2.1', '1.2.2', '1.2.3', '1.2.4', '1.2.5', '1.2.6', '1.3.0', '1.3.1', '1.4.0', '1.5.0',
  '1.5.1', '1.5.2', '1.6.0', '1.6.1', '1.6.2', '1.6.3', '1.6.4', '1.6.5', '1.6.6', '1.6.7', '1.6.9', '1.7.0', '1.7.1',
  '1.8.0', '1.8.3', '1.8.4', '1.8.5', '1.8.6', '1.8.7', '1.9.0', '1.9.1', '1.9.2', '1.9.3', '1.9.4', '1.10.0',
  '1.10.1', '1.11.0', '1.11.1', '1.11.3', '1.11.4', '1.12.0', '1.12.1', '1.12.2', '1.12.3', '1.12.4', '1.13.0',
  '1.13.1', '1.13.2', '1.14.0', '1.14.1', '1.14.2',
]; // prettier-ignore

/** Go's '%v'; a helper, so the package build's import scan does not mistake the message for an import. */
export const singleQuoted = (s: string): string => `'${s}'`;

/** migration.ValidUpMigration: undefined when `to` is `from` or a later version in the chain, else the error. */
export function validUpMigration(from: string, to: string): string | undefined {
  const i = COREDNS_VERSIONS.indexOf(from);
  if (i < 0) return `start version '${from}' not supported`;
  if (from === to || COREDNS_VERSIONS.indexOf(to) > i) return undefined;
  return `cannot migrate up to ${singleQuoted(to)} from ${singleQuoted(from)}`;
}
