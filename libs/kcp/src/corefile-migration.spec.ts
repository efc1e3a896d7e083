// The ported part of github.com/coredns/corefile-migration (migration/migrate_test.go style: Corefiles kubeadm ships).
import { corefileString, migrateCorefile, parseCorefile } from './corefile-migration';

// kubeadm's default Corefile (cmd/kubeadm/app/phases/addons/dns/manifests.go).
const KUBEADM_COREFILE = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
`;

describe('Corefile migration (ported range: from CoreDNS 1.10.0)', () => {
  it('parses servers, plugins and options, and writes them in the library layout', () => {
    const servers = parseCorefile(KUBEADM_COREFILE);
    expect(servers).toHaveLength(1);
    expect(servers[0].domPorts).toEqual(['.:53']);
    expect(servers[0].plugins.map((p) => p.name)).toEqual([
      'errors',
      'health',
      'ready',
      'kubernetes',
      'prometheus',
      'forward',
      'cache',
      'loop',
      'reload',
      'loadbalance',
    ]);
    expect(servers[0].plugins[3]).toEqual({
      name: 'kubernetes',
      args: ['cluster.local', 'in-addr.arpa', 'ip6.arpa'],
      options: [
        { name: 'pods', args: ['insecure'] },
        { name: 'fallthrough', args: ['in-addr.arpa', 'ip6.arpa'] },
        { name: 'ttl', args: ['30'] },
      ],
    });
    // 4-space indentation (corefile.go indent), options at 8.
    expect(corefileString(servers)).toBe(KUBEADM_COREFILE.replace(/^ {7}/gm, '        '));
  });

  it('the same version returns the Corefile untouched', () =>
    expect(migrateCorefile('1.11.3', '1.11.3', 'not even { parsed')).toBe('not even { parsed'));

  it('1.11.3 → 1.12.0 (Kubernetes 1.32 → 1.33): the kubeadm Corefile keeps its content', () =>
    expect(parseCorefile(migrateCorefile('1.11.3', '1.12.0', KUBEADM_COREFILE))).toEqual(
      parseCorefile(KUBEADM_COREFILE),
    ));

  it("the kubernetes plugin's ignored endpoint option keeps only its first argument (useFirstArgumentOnly)", () => {
    const out = migrateCorefile(
      '1.10.1',
      '1.11.1',
      '.:53 {\n    kubernetes cluster.local {\n        endpoint https://a https://b\n    }\n}\n',
    );
    expect(out).toBe('.:53 {\n    kubernetes cluster.local {\n        endpoint https://a\n    }\n}\n');
  });

  it('comments and quoted arguments', () => {
    const servers = parseCorefile('# top\n.:53 { # server\n    hosts "/etc/my hosts" # file\n}\n');
    expect(servers[0].plugins).toEqual([{ name: 'hosts', args: ['/etc/my hosts'], options: [] }]);
    expect(corefileString(servers)).toBe('.:53 {\n    hosts "/etc/my hosts"\n}\n');
  });

  it.each([
    ['an unknown start version', '0.9.0', '1.12.0', "start version '0.9.0' not supported"],
    ['a downgrade', '1.12.0', '1.11.3', "cannot migrate up to '1.11.3' from '1.12.0'"],
    ['an unknown target version', '1.11.3', '9.9.9', "cannot migrate up to '9.9.9'"],
    ['a start version before the ported range', '1.8.0', '1.11.3', 'is not supported by this controller'],
  ])('refuses %s', (_, from, to, message) =>
    expect(() => migrateCorefile(from, to, KUBEADM_COREFILE)).toThrow(message),
  );
});
