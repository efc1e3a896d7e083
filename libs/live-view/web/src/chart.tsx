// The in-place / replaced counts of each rollout owner over time: two step lines in a small SVG per owner.
import type { CountPoint, OwnerSeries } from '../../src/rollout-counts';

const W = 300;
const H = 90;
const PAD = 4;

function stepPath(
  points: CountPoint[],
  value: (p: CountPoint) => number,
  x: (t: number) => number,
  y: (v: number) => number,
  now: number,
): string {
  let d = '';
  points.forEach((p, i) => {
    d += i === 0 ? `M${x(p.t)},${y(value(p))}` : `H${x(p.t)}V${y(value(p))}`;
  });
  return `${d}H${x(now)}`;
}

export function CountsChart({ series, now }: { series: OwnerSeries[]; now: number }) {
  if (series.length === 0) return null;
  return (
    <div class="charts">
      <div class="chart-legend">
        <span class="line in-place" /> in place <span class="line replaced" /> replaced
      </div>
      {series.map((s) => (
        <OwnerChart key={`${s.owner.kind}/${s.owner.name}`} series={s} now={now} />
      ))}
    </div>
  );
}

function OwnerChart({ series, now }: { series: OwnerSeries; now: number }) {
  const pts = series.points;
  const last = pts[pts.length - 1];
  const t0 = pts[0].t;
  const t1 = Math.max(now, last.t, t0 + 1000);
  const max = Math.max(1, ...pts.map((p) => Math.max(p.inPlace, p.replaced)));
  const x = (t: number) => PAD + ((t - t0) / (t1 - t0)) * (W - 2 * PAD);
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  return (
    <figure
      class="chart"
      data-testid="counts"
      data-owner={`${series.owner.kind}/${series.owner.name}`}
      data-in-place={last.inPlace}
      data-replaced={last.replaced}
    >
      <figcaption>
        {series.owner.kind === 'KubeadmControlPlane' ? 'KCP' : 'MD'} {series.owner.name}:{' '}
        <b class="in-place">{last.inPlace}</b> in place, <b class="replaced">{last.replaced}</b> replaced
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`counts of ${series.owner.name}`}>
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        <text x={PAD} y={12} class="max">
          {max}
        </text>
        <path d={stepPath(pts, (p) => p.inPlace, x, y, t1)} class="in-place" />
        <path d={stepPath(pts, (p) => p.replaced, x, y, t1)} class="replaced" />
      </svg>
    </figure>
  );
}
