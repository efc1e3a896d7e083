import { managerUserAgent } from './user-agent';

describe('managerUserAgent (cluster-api remote.DefaultClusterAPIUserAgent)', () => {
  it('is "<command>/<version> <source> (<os>/<arch>) cluster.x-k8s.io/<commit>", the command "manager" as in upstream\'s images', () => {
    const ua = managerUserAgent();
    expect(ua).toMatch(
      /^manager\/v\d+\.\d+\.\d+ cluster-api-controller-manager \(\w+\/\w+\) cluster\.x-k8s\.io\/unknown$/,
    );
    expect(ua).toContain(`(${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch})`);
    // The API server takes the field manager of patches without ?fieldManager= from the first word.
    expect(ua.split('/')[0]).toBe('manager');
  });
});
