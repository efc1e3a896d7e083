// A small webhook pair for the manager's webhook tests: TestMachines (the envtest fixture kind) get spec.size
// defaulted to "small" and a spec.size of "huge" is denied as Invalid, worded as apierrors.NewInvalid.
import { request } from 'node:https';
import type { KubeObject } from '@capi/apimachinery';
import { TEST_INFRA_API_VERSION, TEST_MACHINE_KIND } from '@capi/envtest';
import { fieldError, invalidError, type WebhookRegistration } from '@capi/webhooks';

type Sized = KubeObject & { spec?: { size?: string } };
const [group, version] = TEST_INFRA_API_VERSION.split('/');

export const testMachineWebhooks: WebhookRegistration = {
  group,
  version,
  kind: TEST_MACHINE_KIND,
  resource: 'testmachines',
  defaulter: {
    default(obj: Sized) {
      obj.spec ??= {};
      obj.spec.size ??= 'small';
    },
  },
  validator: {
    validateCreate(obj: Sized) {
      if (obj.spec?.size === 'huge')
        throw invalidError(group, TEST_MACHINE_KIND, obj.metadata.name ?? '', [
          fieldError.notSupported('spec.size', 'huge', ['small', 'large']),
        ]);
    },
    validateUpdate: () => undefined,
    validateDelete: () => undefined,
  },
};

/** The message the validator denies `name` with. */
export const deniedMessage = (name: string) =>
  `${TEST_MACHINE_KIND}.${group} "${name}" is invalid: spec.size: Unsupported value: "huge": supported values: "small", "large"`;

/** POSTs an AdmissionReview to the webhook server at `url` + `path`, trusting `caBundle` (base64 PEM). */
export function review(url: string, caBundle: string, path: string, request_: object): Promise<any> {
  const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: request_ });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        ca: Buffer.from(caBundle, 'base64'),
        headers: { 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
