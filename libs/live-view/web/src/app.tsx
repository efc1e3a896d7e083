// The page: one section per Cluster (its tree, a tile per Machine, the rollout counts chart), re-rendered from each
// state the server pushes on /api/events.
import { useEffect, useState } from 'preact/hooks';
import type { ClusterTree, TreeNode } from '@capi/cluster-tree';
import type { ClusterView, LiveViewState, MachineTile } from '../../src/view';
import { CountsChart } from './chart';
import { age } from './format';

type Connection = 'connecting' | 'live' | 'reconnecting';

export function App() {
  const [state, setState] = useState<LiveViewState | undefined>();
  const [connection, setConnection] = useState<Connection>('connecting');
  useEffect(() => {
    // EventSource reconnects by itself after the manager restarts.
    const events = new EventSource('api/events');
    events.addEventListener('state', (e) => {
      setState(JSON.parse((e as MessageEvent<string>).data) as LiveViewState);
      setConnection('live');
    });
    events.onerror = () => setConnection('reconnecting');
    return () => events.close();
  }, []);
  return (
    <main>
      <header>
        <h1>capi-inplace live view</h1>
        <span class={`connection ${connection}`} data-testid="connection">
          {connection}
        </span>
        <Legend />
      </header>
      {state && state.clusters.length === 0 && <p class="empty">No Clusters yet (try npm run demo).</p>}
      {state?.clusters.map((c) => (
        <ClusterSection key={`${c.namespace}/${c.name}`} cluster={c} state={state} />
      ))}
    </main>
  );
}

const LEGEND: Array<[MachineTile['state'], string]> = [
  ['up-to-date', 'Ready, up to date'],
  ['ready', 'Ready'],
  ['provisioning', 'Provisioning'],
  ['outdated', 'Outdated'],
  ['updating', 'Updating in place'],
  ['deleting', 'Deleting'],
];

function Legend() {
  return (
    <ul class="legend">
      {LEGEND.map(([s, label]) => (
        <li key={s}>
          <span class={`swatch ${s}`} />
          {label}
        </li>
      ))}
    </ul>
  );
}

function ClusterSection({ cluster, state }: { cluster: ClusterView; state: LiveViewState }) {
  // The control plane first, then the MachineDeployments by name.
  const series = state.series
    .filter((s) => s.owner.namespace === cluster.namespace && s.owner.cluster === cluster.name)
    .sort((a, b) => a.owner.kind.localeCompare(b.owner.kind) || a.owner.name.localeCompare(b.owner.name));
  const now = Date.parse(state.generatedAt);
  return (
    <section class="cluster" data-testid="cluster" data-cluster={`${cluster.namespace}/${cluster.name}`}>
      <h2>
        Cluster {cluster.namespace}/{cluster.name} {cluster.phase && <span class="phase">{cluster.phase}</span>}
      </h2>
      <div class="cluster-body">
        <Tree tree={cluster.tree} tiles={cluster.tiles} now={now} />
        <CountsChart series={series} now={now} />
      </div>
    </section>
  );
}

function Tree({ tree, tiles, now }: { tree: ClusterTree; tiles: ClusterView['tiles']; now: number }) {
  return (
    <ul class="tree">
      <Node node={tree.root} tiles={tiles} now={now} />
    </ul>
  );
}

function Node({ node, tiles, now }: { node: TreeNode; tiles: ClusterView['tiles']; now: number }) {
  const machines = node.children.filter((c) => c.kind === 'Machine');
  const others = node.children.filter((c) => c.kind !== 'Machine');
  const columns = [
    node.version,
    node.replicas && `replicas ${node.replicas}`,
    node.ready && `ready ${node.ready}`,
    node.upToDate && `up to date ${node.upToDate}`,
  ].filter(Boolean);
  return (
    <li>
      <div class="row">
        <span class="kind">{node.virtual ? '' : node.kind}</span> <span class="name">{node.name}</span>
        {columns.length > 0 && <span class="columns">{columns.join(' · ')}</span>}
        {node.condition && (
          <span class={`condition ${node.condition.status}`} title={node.condition.message ?? ''}>
            {node.condition.type}={node.condition.status}
            {node.condition.reason ? ` (${node.condition.reason})` : ''}
          </span>
        )}
        {node.deleting && <span class="condition False">deleting</span>}
      </div>
      {machines.length > 0 && (
        <div class="tiles">
          {machines.map((m) => {
            const tile = m.uid ? tiles[m.uid] : undefined;
            return tile ? <Tile key={m.uid} tile={tile} now={now} /> : null;
          })}
        </div>
      )}
      {others.length > 0 && (
        <ul>
          {others.map((c) => (
            <Node key={`${c.kind}/${c.name}`} node={c} tiles={tiles} now={now} />
          ))}
        </ul>
      )}
    </li>
  );
}

function Tile({ tile, now }: { tile: MachineTile; now: number }) {
  const updaters = tile.updaters && (tile.updaters.length > 0 ? tile.updaters.join(', ') : 'all registered');
  const since = tile.since ? `${age(now, tile.since)}` : '';
  const title = [
    `${tile.name} (${tile.uid.slice(0, 8)})`,
    tile.label,
    tile.version && `version ${tile.version}`,
    updaters && `updater: ${updaters}`,
    tile.reason && `reason: ${tile.reason}`,
    tile.since && `since ${tile.since}`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <div
      class={`tile ${tile.state}`}
      title={title}
      data-testid="machine-tile"
      data-machine={tile.name}
      data-state={tile.state}
    >
      <div class="tile-name">{tile.name}</div>
      <div class="tile-state">{tile.label}</div>
      <div class="tile-detail">
        {tile.version}
        {since && ` · ${since}`}
      </div>
      {updaters && <div class="tile-detail">via {updaters}</div>}
    </div>
  );
}
