// `kubectl get clusters -o wide` as the API serves it: a meta.k8s.io/v1 Table (the CRD's printer columns).
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

export interface Table {
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[] }[];
}

/** GETs `path` as a Table; returns each row as column name -> cell. */
export async function getTable(kubeconfig: string, path: string): Promise<Record<string, unknown>[]> {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const opts: https.RequestOptions = {
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
  };
  await kc.applyToHTTPSOptions(opts);
  const body = await new Promise<string>((resolve, reject) => {
    const req = https.request(new URL(path, kc.getCurrentCluster()!.server), opts, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(data) : reject(new Error(`GET ${path}: ${res.statusCode} ${data}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
  const table = JSON.parse(body) as Table;
  return table.rows.map((r) => Object.fromEntries(table.columnDefinitions.map((c, i) => [c.name, r.cells[i]])));
}
