// What a new user types first against a cluster: `kubectl auth whoami`, `auth can-i`, and `apply -k` of a
// ServiceAccount with its RBAC (deploy/rbac) — through the real kubectl, on both targets.
import { join } from 'node:path';
import { kubectlSuite } from './support/kubectl';

jest.setTimeout(60_000);

const { suite, kubectl, ok } = kubectlSuite('apiserver-kubectl-auth-');
const RBAC = join(__dirname, '../../../deploy/rbac');
const embedded = () => suite.ts.target === 'embedded';

describe('kubectl auth and ServiceAccounts', () => {
  it('auth whoami names the token holder (SelfSubjectReview)', async () => {
    const out = await ok(['auth', 'whoami', '-o', 'json']);
    const review = JSON.parse(out);
    expect(review).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(review.status.userInfo.groups).toContain('system:masters');
    if (embedded()) expect(review.status.userInfo.username).toBe('capi-embedded-admin');
  });

  it('auth can-i answers yes for an administrator, and --list lists everything (SelfSubject{Access,Rules}Review)', async () => {
    expect((await ok(['auth', 'can-i', 'create', 'machines.cluster.x-k8s.io', '-n', 'default'])).trim()).toBe('yes');
    expect((await ok(['auth', 'can-i', 'delete', 'nodes'])).trim()).toBe('yes');
    const list = await ok(['auth', 'can-i', '--list']);
    expect(list).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('a review is create-only and not stored', async () => {
    const r = await kubectl(['get', '--raw', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/MethodNotAllowed|method|not allowed|NotFound|could not find/i);
  });

  it('apply -k deploy/rbac (a ServiceAccount, ClusterRole, Role and bindings) validates and creates everything', async () => {
    await ok(['create', 'namespace', 'capi-system']);
    const out = await ok(['apply', '--server-side', '-k', RBAC]);
    expect(out).toContain('serviceaccount/capi-manager serverside-applied');
    expect(out).toContain('clusterrolebinding.rbac.authorization.k8s.io/capi-manager-rolebinding serverside-applied');
    // Client-side apply downloads the OpenAPI of every kind it validates: the ServiceAccount's must be there.
    expect(await ok(['apply', '-k', RBAC])).toContain('serviceaccount/capi-manager');
    const sa = JSON.parse(await ok(['get', 'sa', 'capi-manager', '-n', 'capi-system', '-o', 'json']));
    expect(sa).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'capi-manager', namespace: 'capi-system' } });
  });
});
