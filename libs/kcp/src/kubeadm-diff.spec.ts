import { isJoinConfig, prepareKubeadmConfigSpecsForDiff } from './kubeadm-diff';
import type { KubeadmConfigSpec } from '@capi/api';

const nodeRegistration = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });

/** What KCP creates for the first Machine (init) and for joining Machines. */
const initSpec = (over: Record<string, unknown> = {}): KubeadmConfigSpec => ({
  clusterConfiguration: { etcd: { local: { imageTag: '3.5.0' } } },
  initConfiguration: { nodeRegistration: nodeRegistration('h'), ...over },
  files: [{ path: '/etc/a', content: 'a' }],
});
const joinSpec = (over: Record<string, unknown> = {}): KubeadmConfigSpec => ({
  clusterConfiguration: { etcd: { local: { imageTag: '3.5.0' } } },
  joinConfiguration: { nodeRegistration: nodeRegistration('h'), controlPlane: {}, ...over },
  files: [{ path: '/etc/a', content: 'a' }],
});

describe('isJoinConfig', () => {
  it('join: controlPlane present (upstream isKubeadmConfigForJoin); discovery or timeouts alone do not make a join config', () => {
    expect(isJoinConfig(joinSpec())).toBe(true);
    expect(isJoinConfig({ joinConfiguration: { discovery: { bootstrapToken: { token: 't' } } } })).toBe(false);
    expect(isJoinConfig(initSpec())).toBe(false);
    expect(
      isJoinConfig({
        ...initSpec(),
        joinConfiguration: { timeouts: { controlPlaneComponentHealthCheckSeconds: 240 } },
      }),
    ).toBe(false);
  });
});

describe('prepareKubeadmConfigSpecsForDiff', () => {
  it('init → join copies the current nodeRegistration, patches, skipPhases and timeouts, not the desired joinConfiguration', () => {
    const current = initSpec({
      patches: { directory: '/p' },
      skipPhases: ['addon/kube-proxy'],
      timeouts: { kubeletHealthCheckSeconds: 40 },
    });
    const desired = joinSpec({
      nodeRegistration: nodeRegistration('h', { kubeletExtraArgs: [{ name: 'v', value: '4' }] }),
    });
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, true);
    expect(c.joinConfiguration).toEqual({
      controlPlane: {},
      nodeRegistration: { name: 'h', imagePullPolicy: 'IfNotPresent' },
      patches: { directory: '/p' },
      skipPhases: ['addon/kube-proxy'],
      timeouts: { kubeletHealthCheckSeconds: 40 },
    });
    expect(d.joinConfiguration).toEqual({
      controlPlane: {},
      nodeRegistration: { name: 'h', imagePullPolicy: 'IfNotPresent', kubeletExtraArgs: [{ name: 'v', value: '4' }] },
    });
    // The desired join change stays visible to the extension.
    expect(c.joinConfiguration).not.toEqual(d.joinConfiguration);
    // The init configuration is gone from current, defaults are the same on both sides.
    expect(c.initConfiguration).toEqual({ nodeRegistration: { imagePullPolicy: 'IfNotPresent' } });
    expect(d.initConfiguration).toEqual(c.initConfiguration);
  });

  it('an unchanged first Machine compares equal to the desired join config; inputs are not modified', () => {
    const current = initSpec();
    const desired = joinSpec();
    const before = structuredClone(current);
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, true);
    expect(c).toEqual(d);
    expect(current).toEqual(before);
  });

  it('localAPIEndpoint becomes joinConfiguration.controlPlane.localAPIEndpoint; caCertPath never counts', () => {
    const current = initSpec({ localAPIEndpoint: { advertiseAddress: '10.0.0.1', bindPort: 6443 } });
    const desired = joinSpec({
      caCertPath: '/etc/ca.crt',
      controlPlane: { localAPIEndpoint: { advertiseAddress: '10.0.0.1', bindPort: 6443 } },
    });
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, true);
    expect(c).toEqual(d);
  });

  it('without conversion the init configuration is compared as it is', () => {
    const current = initSpec();
    const desired = initSpec({ nodeRegistration: nodeRegistration('other') });
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, false);
    expect((c.initConfiguration as { nodeRegistration: unknown }).nodeRegistration).toEqual({
      name: 'h',
      imagePullPolicy: 'IfNotPresent',
    });
    expect((d.initConfiguration as { nodeRegistration: unknown }).nodeRegistration).toEqual({
      name: 'other',
      imagePullPolicy: 'IfNotPresent',
    });
  });

  it('ignores controlPlaneEndpoint, dns, discovery, health-check timeouts, previous defaults and omittable empties', () => {
    const current = joinSpec({
      discovery: { bootstrapToken: { token: 'secret', apiServerEndpoint: '10.0.0.1:6443' } },
      timeouts: { controlPlaneComponentHealthCheckSeconds: 240 },
      nodeRegistration: nodeRegistration('h', { imagePullPolicy: 'IfNotPresent', kubeletExtraArgs: [] }),
    });
    current.clusterConfiguration = {
      etcd: { local: { imageTag: '3.5.0', extraArgs: [] } },
      controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 },
      dns: { imageTag: 'x' },
    };
    current.format = 'cloud-config';
    current.mounts = [];
    const desired = joinSpec();
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, true);
    expect(c).toEqual(d);
    expect(JSON.stringify(c)).not.toContain('secret');
  });

  it('keeps an empty taints list (empty means no taints, unset means kubeadm defaults)', () => {
    const current = joinSpec({ nodeRegistration: nodeRegistration('h', { taints: [] }) });
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(joinSpec(), current, true);
    expect(c).not.toEqual(d);
  });

  // Upstream inplace_canupdatemachine_test.go Test_canExtensionsUpdateMachine: the KubeadmConfig in the request keeps
  // joinConfiguration.controlPlane: {} (a set pointer) and the previous defaults.
  it('keeps joinConfiguration.controlPlane: {} on both sides, as the CanUpdateMachine request upstream does', () => {
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(joinSpec(), initSpec(), true);
    expect(d.joinConfiguration).toEqual({
      controlPlane: {},
      nodeRegistration: { name: 'h', imagePullPolicy: 'IfNotPresent' },
    });
    expect(d.initConfiguration).toEqual({ nodeRegistration: { imagePullPolicy: 'IfNotPresent' } });
    expect(d.format).toBe('cloud-config');
    expect(c).toEqual(d);
  });

  it('drops an empty joinConfiguration.controlPlane when the desired has none', () => {
    const current = joinSpec();
    const desired = joinSpec();
    delete (desired.joinConfiguration as Record<string, unknown>).controlPlane;
    const { current: c, desired: d } = prepareKubeadmConfigSpecsForDiff(desired, current, true);
    expect(c).toEqual(d);
  });
});
