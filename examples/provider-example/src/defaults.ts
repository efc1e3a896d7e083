// The example provider's defaults, so it runs next to the repository's own manager (`npm start`) without a clash:
// its own data dir (the embedded API server's storage, kubeconfig and port file; the API server reuses that dir's
// previous port when free, else takes a random one), its own metrics and health ports, and its controller set.
// A flag given on the command line wins over each of them.

/** No KubeadmControlPlane or MachineHealthCheck in this provider; extensionconfig keeps HTTPS extensions possible. */
export const EXAMPLE_CONTROLLERS = 'cluster,machineset,machine,extensionconfig';
/** `npm start` uses `.capi`; both are relative to the current directory. */
export const EXAMPLE_DATA_DIR = '.capi-example';
/** `npm start` serves metrics on 127.0.0.1:8080 and health on 127.0.0.1:9440 (upstream's ports). */
export const EXAMPLE_METRICS_BIND_ADDRESS = '127.0.0.1:8081';
export const EXAMPLE_HEALTH_PROBE_BIND_ADDRESS = '127.0.0.1:9441';

const given = (argv: readonly string[], names: readonly string[]) =>
  argv.some((a) =>
    names.some((n) => a === `--${n}` || a === `-${n}` || a.startsWith(`--${n}=`) || a.startsWith(`-${n}=`)),
  );

/** `argv` with the example's default for every flag it does not give. */
export function withExampleDefaults(argv: readonly string[]): string[] {
  const defaults: Array<[names: string[], flag: string]> = [
    [['controllers'], `--controllers=${EXAMPLE_CONTROLLERS}`],
    [['data-dir'], `--data-dir=${EXAMPLE_DATA_DIR}`],
    [['metrics-bind-address'], `--metrics-bind-address=${EXAMPLE_METRICS_BIND_ADDRESS}`],
    [['health-probe-bind-address', 'health-addr'], `--health-probe-bind-address=${EXAMPLE_HEALTH_PROBE_BIND_ADDRESS}`],
  ];
  return [...defaults.filter(([names]) => !given(argv, names)).map(([, flag]) => flag), ...argv];
}
