// The self-review APIs kubectl uses (`kubectl auth can-i`, `auth can-i --list`, `auth whoami`): create-only
// resources that are answered, never stored (kube's pkg/registry/authorization/selfsubject*review and
// pkg/registry/authentication/selfsubjectreview). This server has one bearer token and no authorizer: its holder is
// an administrator, so every access review is allowed — which is what the answers say, and why.
import type { KubeObject } from '@capi/apimachinery';
import { StatusError } from './status';
import type { ResourceInfo } from './registry';

/** The identity behind the server's token, as a kube-apiserver token file would name an administrator. */
export const EMBEDDED_ADMIN = {
  username: 'capi-embedded-admin',
  groups: ['system:masters', 'system:authenticated'],
};

const ALLOWED_REASON = 'the embedded API server authorizes every request made with its token';

type Answer = (body: KubeObject) => Record<string, unknown>;

const ANSWERS: Record<string, Answer> = {
  'authorization.k8s.io/SelfSubjectAccessReview': () => ({ allowed: true, reason: ALLOWED_REASON }),
  'authorization.k8s.io/SelfSubjectRulesReview': () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
  'authentication.k8s.io/SelfSubjectReview': () => ({
    userInfo: { username: EMBEDDED_ADMIN.username, groups: [...EMBEDDED_ADMIN.groups] },
  }),
};

/** The resources answered here, for the registry (create only: kube serves no other verb on them). */
export function reviewResources(): ResourceInfo[] {
  const review = (group: string, kind: string, plural: string): ResourceInfo => ({
    group,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced: false,
    statusSubresource: false,
    schema: undefined,
    verbs: ['create'],
    categories: [],
    printerColumns: [],
    custom: false,
    review: true,
  });
  return [
    review('authorization.k8s.io', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews'),
    review('authorization.k8s.io', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews'),
    review('authentication.k8s.io', 'SelfSubjectReview', 'selfsubjectreviews'),
  ];
}

/** The answered review: the request's spec echoed, its status filled in (a 201, as kube's create). */
export function answerReview(info: ResourceInfo, method: string, name: string | undefined, body: unknown): KubeObject {
  if (method !== 'POST' || name)
    throw new StatusError(405, 'the server does not allow this method on the requested resource', 'MethodNotAllowed');
  const answer = ANSWERS[`${info.group}/${info.kind}`];
  if (!answer) throw new StatusError(404, 'the server could not find the requested resource', 'NotFound');
  const request = (body && typeof body === 'object' ? body : {}) as KubeObject & { spec?: unknown };
  const wanted = request.kind;
  if (wanted && wanted !== info.kind)
    throw new StatusError(400, `expected a ${info.kind}, got a ${wanted}`, 'BadRequest');
  return {
    apiVersion: `${info.group}/${info.version}`,
    kind: info.kind,
    metadata: { ...(request.metadata?.name ? { name: request.metadata.name } : {}), creationTimestamp: null },
    ...(request.spec !== undefined ? { spec: request.spec } : {}),
    status: answer(request),
  } as unknown as KubeObject;
}
